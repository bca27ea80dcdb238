#!/usr/bin/env python3
# Tallies fastchess output files ("Finished game N (A vs B): result {reason}" lines)
# from ponderosa's side: W/D/L, score, Elo with a 95% interval, and how games ended.
# Usage: scripts/tally-fastchess.py bench-out/glaurung-*.out [...]  (several runs add up)
#        NAME=ponder-on scripts/tally-fastchess.py /tmp/ponder-match/fastchess.txt  (another engine's side)
import re,sys,math,os
name=os.environ.get("NAME","ponderosa")
w=l=d=0; reasons={}
for f in sys.argv[1:]:
    for line in open(f):
        m=re.match(r"Finished game \d+ \((\S+) vs (\S+)\): (\S+) \{(.*)\}",line)
        if not m: continue
        a,b,res,why=m.groups()
        reasons[why.split(' (')[0]]=reasons.get(why.split(' (')[0],0)+1
        if res=="1/2-1/2": d+=1
        elif (res=="1-0")==(a==name): w+=1
        else: l+=1
n=w+l+d; s=(w+d/2)/n
# elo and 95% error via trinomial variance
var=(w*(1-s)**2+l*(0-s)**2+d*(0.5-s)**2)/n
se=math.sqrt(var/n)
elo=lambda p:-400*math.log10(1/p-1)
print(f"games {n}: +{w} ={d} -{l}, score {100*s:.1f}%, Elo {elo(s):+.0f} (95% {elo(max(1e-9,s-1.96*se)):+.0f} .. {elo(min(1-1e-9,s+1.96*se)):+.0f})")
for k,v in sorted(reasons.items(),key=lambda x:-x[1]): print(f"  {v:4d} {k}")

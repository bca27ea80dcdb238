// Package train fits ponderosa's evaluation network (engine/nnue's
// perspective net, 768 → H → 1 ×2) to positions of internal/nnuedata files
// and exports it quantised. cmd/train is its command line;
// docs/nnue-net.md describes the network, the loss, the optimiser, the
// checkpoint and net files, and the commands.
//
// The float network (Net) keeps all parameters in one float32 slice. For a
// position, each perspective's accumulator is the input bias plus the
// input-weight rows of its active features (nnue.Feature); the activation
// a (clipped ReLU, or squared clipped ReLU) of the side to move's and of
// the other side's accumulator feed one output
//
//	y = b2 + Σ_j w2[j]·a(acc_us[j]) + Σ_j w2[H+j]·a(acc_them[j])
//
// whose engine value is y·Scale centipawns. The loss of a position is
// (sigmoid(y) − target)², target = Lambda·sigmoid(score/Scale) +
// (1 − Lambda)·result in the side to move's view (Target), and a batch's
// loss is their mean. Gradients are exact (backpropagation through the
// clamps, whose derivative is taken as 0 at 0 and 1); only the rows of the
// active features get input-weight gradient.
//
// Trainer runs Adam over mini-batches on all cores with bit-identical
// results for any number of threads (see Trainer); Fit adds files,
// validation, progress, checkpoints that resume mid-epoch, and the
// quantised export after each epoch.
package train

package lichesstest

// Wire types, shaped after the schemas of the Lichess OpenAPI spec
// (bot-subset/schemas). Field names and omission rules follow the spec:
// optional fields carry omitempty, required ones never do.

type jsonVariant struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Short string `json:"short,omitempty"`
}

// ChallengeUser.yaml
type jsonChallengeUser struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Rating      int    `json:"rating,omitempty"`
	Title       string `json:"title,omitempty"`
	Provisional bool   `json:"provisional,omitempty"`
	Online      bool   `json:"online,omitempty"`
}

// TimeControl.yaml (one of the three shapes, selected by Type).
type jsonTimeControl struct {
	Type        string `json:"type"`
	Limit       *int   `json:"limit,omitempty"`
	Increment   *int   `json:"increment,omitempty"`
	Show        string `json:"show,omitempty"`
	DaysPerTurn int    `json:"daysPerTurn,omitempty"`
}

type jsonChallengePerf struct {
	Icon string `json:"icon"`
	Name string `json:"name"`
}

// ChallengeJson.yaml and ChallengeDeclinedJson.yaml.
type jsonChallenge struct {
	ID               string             `json:"id"`
	URL              string             `json:"url"`
	Status           string             `json:"status"`
	Challenger       jsonChallengeUser  `json:"challenger"`
	DestUser         *jsonChallengeUser `json:"destUser"`
	Variant          jsonVariant        `json:"variant"`
	Rated            bool               `json:"rated"`
	Speed            string             `json:"speed"`
	TimeControl      jsonTimeControl    `json:"timeControl"`
	Color            string             `json:"color"`
	FinalColor       string             `json:"finalColor,omitempty"`
	Perf             jsonChallengePerf  `json:"perf"`
	Direction        string             `json:"direction,omitempty"`
	InitialFen       string             `json:"initialFen,omitempty"`
	DeclineReason    string             `json:"declineReason,omitempty"`
	DeclineReasonKey string             `json:"declineReasonKey,omitempty"`
}

// GameCompat.yaml
type jsonCompat struct {
	Bot   bool `json:"bot"`
	Board bool `json:"board"`
}

// ChallengeEvent.yaml, ChallengeCanceledEvent.yaml, ChallengeDeclinedEvent.yaml
type jsonChallengeEvent struct {
	Type      string        `json:"type"`
	Challenge jsonChallenge `json:"challenge"`
	Compat    *jsonCompat   `json:"compat,omitempty"`
}

// GameStatus.yaml
type jsonGameStatus struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// GameEventOpponent.yaml (player form).
type jsonGameEventOpponent struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	Rating     int    `json:"rating"`
	RatingDiff *int   `json:"ratingDiff,omitempty"`
}

// GameEventInfo.yaml
type jsonGameEventInfo struct {
	FullID      string                `json:"fullId"`
	GameID      string                `json:"gameId"`
	Fen         string                `json:"fen"`
	Color       string                `json:"color"`
	LastMove    string                `json:"lastMove"`
	Source      string                `json:"source"`
	Status      jsonGameStatus        `json:"status"`
	Variant     jsonVariant           `json:"variant"`
	Speed       string                `json:"speed"`
	Perf        string                `json:"perf"`
	Rated       bool                  `json:"rated"`
	HasMoved    bool                  `json:"hasMoved"`
	Opponent    jsonGameEventOpponent `json:"opponent"`
	IsMyTurn    bool                  `json:"isMyTurn"`
	SecondsLeft *int                  `json:"secondsLeft,omitempty"`
	Winner      string                `json:"winner,omitempty"`
	Rating      int                   `json:"rating,omitempty"`
	RatingDiff  *int                  `json:"ratingDiff,omitempty"`
	Compat      jsonCompat            `json:"compat"`
	ID          string                `json:"id"`
	// TournamentID: the arena of a tournament game (GameEventInfo.yaml).
	TournamentID string `json:"tournamentId,omitempty"`
}

// GameStartEvent.yaml, GameFinishEvent.yaml
type jsonGameEvent struct {
	Type string            `json:"type"`
	Game jsonGameEventInfo `json:"game"`
}

// GameEventPlayer.yaml. Title is written as null when absent, like the
// spec's example.
type jsonGameEventPlayer struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Title       *string `json:"title"`
	Rating      int     `json:"rating"`
	Provisional bool    `json:"provisional,omitempty"`
}

type jsonExpiration struct {
	IdleMillis   int64 `json:"idleMillis"`
	MillisToMove int64 `json:"millisToMove"`
}

// GameStateEvent.yaml
type jsonGameState struct {
	Type       string          `json:"type"`
	Moves      string          `json:"moves"`
	Wtime      int64           `json:"wtime"`
	Btime      int64           `json:"btime"`
	Winc       int64           `json:"winc"`
	Binc       int64           `json:"binc"`
	Status     string          `json:"status"`
	Winner     string          `json:"winner,omitempty"`
	Wdraw      bool            `json:"wdraw,omitempty"`
	Bdraw      bool            `json:"bdraw,omitempty"`
	Wtakeback  bool            `json:"wtakeback,omitempty"`
	Btakeback  bool            `json:"btakeback,omitempty"`
	Expiration *jsonExpiration `json:"expiration,omitempty"`
}

type jsonClock struct {
	Initial   int64 `json:"initial"`
	Increment int64 `json:"increment"`
}

type jsonPerfName struct {
	Name string `json:"name"`
}

// GameFullEvent.yaml
type jsonGameFull struct {
	Type        string              `json:"type"`
	ID          string              `json:"id"`
	Variant     jsonVariant         `json:"variant"`
	Clock       *jsonClock          `json:"clock,omitempty"`
	Speed       string              `json:"speed"`
	Perf        jsonPerfName        `json:"perf"`
	Rated       bool                `json:"rated"`
	CreatedAt   int64               `json:"createdAt"`
	White       jsonGameEventPlayer `json:"white"`
	Black       jsonGameEventPlayer `json:"black"`
	InitialFen  string              `json:"initialFen"`
	State       jsonGameState       `json:"state"`
	DaysPerTurn int                 `json:"daysPerTurn,omitempty"`
	// TournamentID: the arena of a tournament game (GameFullEvent.yaml).
	TournamentID string `json:"tournamentId,omitempty"`
}

// ChatLineEvent.yaml
type jsonChatLine struct {
	Type     string `json:"type"`
	Room     string `json:"room"`
	Username string `json:"username"`
	Text     string `json:"text"`
}

// OpponentGoneEvent.yaml
type jsonOpponentGone struct {
	Type              string `json:"type"`
	Gone              bool   `json:"gone"`
	ClaimWinInSeconds *int   `json:"claimWinInSeconds,omitempty"`
}

// Perf.yaml
type jsonPerf struct {
	Games  int  `json:"games"`
	Rating int  `json:"rating"`
	Rd     int  `json:"rd"`
	Prog   int  `json:"prog"`
	Prov   bool `json:"prov,omitempty"`
}

// PlayTime.yaml
type jsonPlayTime struct {
	Total int `json:"total"`
	TV    int `json:"tv"`
}

// Count.yaml
type jsonCount struct {
	All      int `json:"all"`
	Rated    int `json:"rated"`
	Draw     int `json:"draw"`
	Loss     int `json:"loss"`
	Win      int `json:"win"`
	Bookmark int `json:"bookmark"`
	Playing  int `json:"playing"`
	Import   int `json:"import"`
	Me       int `json:"me"`
}

// User.yaml / UserExtended.yaml (the parts a fake can fill honestly).
type jsonUser struct {
	ID         string              `json:"id"`
	Username   string              `json:"username"`
	Perfs      map[string]jsonPerf `json:"perfs"`
	Title      string              `json:"title,omitempty"`
	CreatedAt  int64               `json:"createdAt"`
	SeenAt     int64               `json:"seenAt"`
	PlayTime   jsonPlayTime        `json:"playTime"`
	URL        string              `json:"url,omitempty"`
	Playing    string              `json:"playing,omitempty"`
	Count      *jsonCount          `json:"count,omitempty"`
	Followable *bool               `json:"followable,omitempty"`
	Following  *bool               `json:"following,omitempty"`
	Blocking   *bool               `json:"blocking,omitempty"`
}

// One entry of nowPlaying in GET /api/account/playing.
type jsonNowPlaying struct {
	FullID      string                `json:"fullId"`
	GameID      string                `json:"gameId"`
	Fen         string                `json:"fen"`
	Color       string                `json:"color"`
	LastMove    string                `json:"lastMove"`
	Source      string                `json:"source"`
	Status      jsonGameStatus        `json:"status"`
	Variant     jsonVariant           `json:"variant"`
	Speed       string                `json:"speed"`
	Perf        string                `json:"perf"`
	Rated       bool                  `json:"rated"`
	Rating      int                   `json:"rating"`
	HasMoved    bool                  `json:"hasMoved"`
	Opponent    jsonGameEventOpponent `json:"opponent"`
	IsMyTurn    bool                  `json:"isMyTurn"`
	SecondsLeft int                   `json:"secondsLeft"`
}

type jsonOK struct {
	OK bool `json:"ok"`
}

type jsonError struct {
	Error string `json:"error"`
}

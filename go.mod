module github.com/tensorfeed/tensorfeed

go 1.26

require (
	github.com/reugn/go-streams v0.13.0
	github.com/samber/lo v1.53.0
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
	gonum.org/v1/gonum v0.17.0
)

require (
	go.uber.org/multierr v1.10.0 // indirect
	golang.org/x/text v0.23.0 // indirect
)

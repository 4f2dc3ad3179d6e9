package workspace

import (
	"context"
	"errors"
	"io/fs"
	"runtime"
	"sync"
)

// walkItem is one file handed from the walker to a worker.
type walkItem struct {
	path string
	d    fs.DirEntry
}

// WalkFiles is the parallel form of Walk for callers that do real work per
// file (grep): one goroutine walks (directory reads and ignore matching
// are cheap and ordered), and workers goroutines call fn for the files it
// yields, concurrently and in no particular order. Directories are not
// passed to fn. workers <= 0 means GOMAXPROCS.
//
// fn returning fs.SkipAll stops the walk and WalkFiles returns nil;
// fs.SkipDir is meaningless for a file and treated as nil; any other error
// stops the walk and is returned (the first one, if several workers fail).
// Cancelling ctx stops it with ctx's error. Every goroutine has exited when
// WalkFiles returns.
func (v *View) WalkFiles(ctx context.Context, root string, workers int, fn WalkFunc) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
	)
	ch := make(chan walkItem, 256)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range ch {
				if inner.Err() != nil {
					continue // drain so the walker never blocks
				}
				err := fn(it.path, it.d)
				if err == nil || errors.Is(err, fs.SkipDir) {
					continue
				}
				if !errors.Is(err, fs.SkipAll) {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				cancel()
			}
		})
	}
	walkErr := v.Walk(inner, root, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		select {
		case ch <- walkItem{p, d}:
			return nil
		case <-inner.Done():
			return fs.SkipAll
		}
	})
	close(ch)
	wg.Wait()
	switch {
	case firstErr != nil:
		return firstErr
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(walkErr, context.Canceled) && inner.Err() != nil:
		return nil // a worker asked for SkipAll
	}
	return walkErr
}

//go:build !unix

package report

const nonBlock = 0

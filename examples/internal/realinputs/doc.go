// Package realinputs locates the real input files (Hadoop's SLS samples,
// real scheduler configurations) that tests under examples/ read where
// they are kept, beside the repository, never copied into it.
//
// Tests call Path with the file's path under the real inputs' directory;
// a missing file skips the test rather than failing it, so the suite runs
// where the files are not provided.
package realinputs

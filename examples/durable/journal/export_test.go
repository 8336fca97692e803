package journal

// The helpers of this package's tests, for those of package
// journal_test (which use journaltest, and journaltest imports journal).
var (
	Payload   = payload
	Seqs      = seqs
	ReplayAll = replayAll
	AppendN   = appendN
)

// For the crash-point tests.
var (
	FormatV1 = formatV1
	FormatV2 = formatV2
	SegName  = segName
)

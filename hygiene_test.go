package berth_test

// The repository's hygiene, checked by CI with the tests: docs that stand on
// their own, functions that read on one screen, files of a readable size.
//
//   - The package docs and the doc comments of exported names (types, their
//     exported fields and methods, functions, constants, variables) cite no
//     document a user of the module does not have: no section signs, test
//     vector ids, issue numbers, "the seed article" or Markdown files that
//     the repository does not ship. Naming a YARN class or method is the
//     citation to use. Every package has a package doc whose first
//     sentence (its synopsis in go doc and on pkg.go.dev) runs to at most
//     maxSynopsis characters. Packages under internal/ are the project's
//     own and are not checked.
//   - No function body runs over maxFuncLines lines. Lines inside a
//     composite literal with no function literal in it are table data and
//     do not count.
//   - No file runs over maxFileLines lines.
//
// Every exception is a line of an allow-list under .ci/ with the reason it
// stands. An entry whose exception is gone fails the test too, so the lists
// only shrink. To rewrite them after a change (existing reasons are kept,
// new entries get "TODO: reason", which fails until a reason is written):
//
//	go test -run TestHygiene -update-hygiene .
//
// Every non-test .go file of the repository is read, examples/ha (a module
// of its own) included; testdata and hidden directories are not.

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateHygiene = flag.Bool("update-hygiene", false,
	"rewrite the allow-lists under .ci/ from the tree: keep the reasons of entries that still apply, add new ones as 'TODO: reason', drop stale ones")

const (
	maxFuncLines = 80
	maxFileLines = 700
	maxSynopsis  = 100

	longFunctionsList = ".ci/long-functions.txt"
	longFilesList     = ".ci/long-files.txt"
	docCitationsList  = ".ci/docs.txt"

	todoReason = "TODO: reason"
)

// hygieneList describes one allow-list: its file and the header that
// -update-hygiene writes above its entries.
type hygieneList struct {
	file   string
	header string
	fix    string // what to do about a finding that is not listed
}

var (
	longFunctions = hygieneList{
		file: longFunctionsList,
		header: `# Functions whose body runs over 80 lines (table data not counted), each
# with the reason it stands. Checked by TestHygiene (hygiene_test.go): an
# entry that no longer exists or is now short fails it, so this list only
# shrinks. Format: path:Func or path:Type.Method, then the reason.
# Regenerate: go test -run TestHygiene -update-hygiene .`,
		fix: "split it into named steps, or list it in " + longFunctionsList + " with a reason",
	}
	longFiles = hygieneList{
		file: longFilesList,
		header: `# Files over 700 lines, each with the reason it stands. Checked by
# TestHygiene (hygiene_test.go); stale entries fail it. Format: path, then
# the reason. Regenerate: go test -run TestHygiene -update-hygiene .`,
		fix: "split it by concept, or list it in " + longFilesList + " with a reason",
	}
	docCitations = hygieneList{
		file: docCitationsList,
		header: `# Exported doc comments that still cite a document a user of the module
# does not have (a section number, a test vector, an issue, the seed article,
# a Markdown file the repository does not ship), and packages whose doc is
# missing or opens with a sentence over 100 characters. Checked by
# TestHygiene (hygiene_test.go); stale entries fail it. Format: path:Name
# (path:package for a package doc, dir:synopsis for its first sentence),
# then the reason.
# Regenerate: go test -run TestHygiene -update-hygiene .`,
		fix: "fix the doc, or list it in " + docCitationsList + " with a reason",
	}
)

// finding is one thing the hygiene check objects to: key is what an
// allow-list entry names, detail what a failure message shows.
type finding struct {
	key    string
	detail string
}

// goSource is one parsed non-test file.
type goSource struct {
	rel   string // slash-separated, from the repository root
	fset  *token.FileSet
	file  *ast.File
	lines int
}

func TestHygiene(t *testing.T) {
	if raceEnabled() && !*updateHygiene {
		t.Skip("parsing the repository under the race detector takes ten times as long; .ci/run runs this test without -race")
	}
	files, docs := loadRepository(t)
	require.NotEmpty(t, files, "no Go files found from the repository root")

	var funcs, long, cites []finding
	for _, f := range files {
		funcs = append(funcs, longFuncs(f)...)
		if f.lines > maxFileLines {
			long = append(long, finding{f.rel, fmt.Sprintf("%d lines (limit %d)", f.lines, maxFileLines)})
		}
		if !internalPackage(f.rel) {
			cites = append(cites, docCitationFindings(f, docs)...)
		}
	}
	cites = append(cites, synopsisFindings(files)...)
	checkList(t, longFunctions, funcs)
	checkList(t, longFiles, long)
	checkList(t, docCitations, cites)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// loadRepository parses every non-test .go file under the repository root
// (this test's directory) and lists the Markdown files the repository
// ships, by slash-separated path and by base name.
func loadRepository(t *testing.T) ([]goSource, map[string]bool) {
	t.Helper()
	var files []goSource
	docs := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(p)
		if strings.HasSuffix(name, ".md") {
			docs[rel] = true
			docs[name] = true
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, goSource{rel: rel, fset: fset, file: f, lines: bytes.Count(src, []byte("\n"))})
		return nil
	})
	require.NoError(t, err)
	return files, docs
}

// checkList compares the findings with the allow-list: a finding not listed
// fails, an entry with no finding (stale) fails, a TODO reason fails. With
// -update-hygiene it first rewrites the list from the findings.
func checkList(t *testing.T, list hygieneList, found []finding) {
	t.Helper()
	entries, err := readAllowList(list.file)
	require.NoError(t, err)
	if *updateHygiene {
		entries = rewriteAllowList(t, list, found, entries)
	}
	seen := map[string]bool{}
	for _, f := range found {
		seen[f.key] = true
		reason, ok := entries[f.key]
		switch {
		case !ok:
			t.Errorf("%s: %s: %s", f.key, f.detail, list.fix)
		case strings.HasPrefix(reason, "TODO"):
			t.Errorf("%s: %s: %s lists it without a reason (%q)", f.key, f.detail, list.file, reason)
		}
	}
	for key := range entries {
		if !seen[key] {
			t.Errorf("%s: stale entry in %s: it no longer applies; delete the line", key, list.file)
		}
	}
}

// readAllowList reads "key reason" lines; blank lines and # comments are
// skipped. A missing file is an empty list.
func readAllowList(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseAllowList(file, data)
}

func parseAllowList(file string, data []byte) (map[string]string, error) {
	entries := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			key, reason = line[:i], strings.TrimSpace(line[i:])
		}
		if reason == "" {
			return nil, fmt.Errorf("%s:%d: entry %q has no reason", file, n, key)
		}
		if _, dup := entries[key]; dup {
			return nil, fmt.Errorf("%s:%d: entry %q is listed twice", file, n, key)
		}
		entries[key] = reason
	}
	return entries, sc.Err()
}

// rewriteAllowList writes the list anew from the findings, keeping the
// reasons already written, and returns the entries written.
func rewriteAllowList(t *testing.T, list hygieneList, found []finding, old map[string]string) map[string]string {
	t.Helper()
	entries := map[string]string{}
	for _, f := range found {
		reason := old[f.key]
		if reason == "" {
			reason = todoReason
		}
		entries[f.key] = reason
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(list.header + "\n\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s  %s\n", k, entries[k])
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(list.file), 0o755))
	require.NoError(t, os.WriteFile(list.file, []byte(b.String()), 0o644))
	t.Logf("wrote %s: %d entries", list.file, len(keys))
	return entries
}

// longFuncs lists the functions of f whose body, table data aside, runs
// over maxFuncLines lines.
func longFuncs(f goSource) []finding {
	var out []finding
	for _, decl := range f.file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		if n := funcBodyLines(f.fset, fn.Body); n > maxFuncLines {
			out = append(out, finding{f.rel + ":" + funcName(fn), fmt.Sprintf("%d lines (limit %d)", n, maxFuncLines)})
		}
	}
	return out
}

// funcName is Func, or Type.Method for a method (pointer and type
// parameters dropped).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return receiverType(fn.Recv.List[0].Type) + "." + fn.Name.Name
}

func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// funcBodyLines counts the lines between a body's braces, less the lines
// that only continue a table-data literal (see isTableData).
func funcBodyLines(fset *token.FileSet, body *ast.BlockStmt) int {
	first := fset.Position(body.Lbrace).Line
	last := fset.Position(body.Rbrace).Line
	n := last - first - 1
	if n <= 0 {
		return 0
	}
	table := map[int]bool{}
	ast.Inspect(body, func(node ast.Node) bool {
		lit, ok := node.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if !isTableData(lit) {
			return true
		}
		// The literal's first line holds code too (the assignment or the
		// call it is an argument of); the lines after it are data.
		from := fset.Position(lit.Lbrace).Line + 1
		to := fset.Position(lit.Rbrace).Line
		for l := from; l <= to && l < last; l++ {
			table[l] = true
		}
		return false
	})
	return n - len(table)
}

// isTableData reports whether a composite literal is data: nothing in it is
// a function literal.
func isTableData(lit *ast.CompositeLit) bool {
	data := true
	ast.Inspect(lit, func(node ast.Node) bool {
		if _, ok := node.(*ast.FuncLit); ok {
			data = false
		}
		return data
	})
	return data
}

// internalPackage reports whether a file belongs to an internal package,
// whose docs only the project's developers read.
func internalPackage(rel string) bool {
	return strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/")
}

// synopsisFindings lists the packages (by directory) outside internal/
// that have no package doc, or whose doc opens with a sentence over
// maxSynopsis characters.
func synopsisFindings(files []goSource) []finding {
	byDir := map[string][]goSource{}
	var dirs []string
	for _, f := range files {
		dir := path.Dir(f.rel)
		if internalPackage(f.rel) {
			continue
		}
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], f)
	}
	var out []finding
	for _, dir := range dirs {
		text := ""
		for _, f := range byDir[dir] { // doc.go first, then the first file with a doc
			if f.file.Doc != nil && (text == "" || path.Base(f.rel) == "doc.go") {
				text = f.file.Doc.Text()
			}
		}
		key := dir + ":synopsis"
		switch syn := new(doc.Package).Synopsis(text); {
		case text == "":
			out = append(out, finding{key, "the package has no package doc"})
		case utf8.RuneCountInString(syn) > maxSynopsis:
			out = append(out, finding{key, fmt.Sprintf("the package doc's first sentence runs to %d characters (limit %d): open with one short sentence that stands alone", utf8.RuneCountInString(syn), maxSynopsis)})
		}
	}
	return out
}

// citation is a pattern of a citation of a document that a user of the
// module does not have.
type citation struct {
	re   *regexp.Regexp
	what string
}

var citations = []citation{
	{regexp.MustCompile(`§`), "a section of a document the user does not have"},
	{regexp.MustCompile(`(?i)\bseed (article|paper|document|doc|text|notes?)\b`), "the seed article"},
	{regexp.MustCompile(`(?i)\b(test )?vectors? [A-Z][A-Z0-9]*-[A-Z0-9-]*[0-9]`), "a test vector"},
	{regexp.MustCompile(`(?i)\b(issue|ticket)s? #?[0-9]+\b`), "an issue of the project's tracker"},
	{regexp.MustCompile(`(?i)\breference (section|document|doc|text|notes|vectors?)\b`), "the reference documents"},
	{regexp.MustCompile(`(?i)\b(of|in|see|per|from|by) the reference( for\b|[).,;:]|$)`), "the reference documents"},
	{regexp.MustCompile(`(?i)\bshared/(reference|conformance|real-inputs)\b`), "files outside the repository"},
}

// markdownName matches a Markdown file's name, which must be one the
// repository ships.
var markdownName = regexp.MustCompile(`[\w./-]*\w\.md\b`)

// citationHints are words without which no pattern above can match: most
// docs contain none, and are passed without running the patterns.
var citationHints = []string{"§", "seed", "vector", "issue", "ticket", "reference", "shared/", ".md"}

func mayCite(text string) bool {
	lower := strings.ToLower(text)
	for _, h := range citationHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// citesUnshipped returns what text cites that a user does not have, or "".
// docs holds the repository's Markdown files by path and base name.
func citesUnshipped(text string, docs map[string]bool) string {
	flat := strings.Join(strings.Fields(text), " ")
	if !mayCite(flat) {
		return ""
	}
	for _, c := range citations {
		if m := c.re.FindString(flat); m != "" {
			return fmt.Sprintf("%s (%q)", c.what, strings.TrimSpace(m))
		}
	}
	for _, m := range markdownName.FindAllString(flat, -1) {
		if !docs[m] && !docs[path.Base(m)] {
			return fmt.Sprintf("a Markdown file the repository does not ship (%q)", m)
		}
	}
	return ""
}

// docCitationFindings checks f's package doc and the doc comments of its
// exported names.
func docCitationFindings(f goSource, docs map[string]bool) []finding {
	var out []finding
	check := func(name string, groups ...*ast.CommentGroup) {
		for _, g := range groups {
			if g == nil {
				continue
			}
			if what := citesUnshipped(g.Text(), docs); what != "" {
				out = append(out, finding{f.rel + ":" + name, "doc cites " + what + "; say the fact instead (naming the YARN class or method is a fine citation)"})
				return
			}
		}
	}
	check("package", f.file.Doc)
	for _, decl := range f.file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(receiverType(d.Recv.List[0].Type))) {
				check(funcName(d), d.Doc)
			}
		case *ast.GenDecl:
			checkGenDecl(d, check)
		}
	}
	return out
}

// checkGenDecl checks the docs of a declaration group's exported specs:
// the group's doc, each spec's doc and line comment, and the exported
// fields and methods of exported struct and interface types.
func checkGenDecl(d *ast.GenDecl, check func(string, ...*ast.CommentGroup)) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			check(s.Name.Name, d.Doc, s.Doc, s.Comment)
			checkMembers(s, check)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					check(n.Name, d.Doc, s.Doc, s.Comment)
					break
				}
			}
		}
	}
}

func checkMembers(s *ast.TypeSpec, check func(string, ...*ast.CommentGroup)) {
	var fields *ast.FieldList
	switch tt := s.Type.(type) {
	case *ast.StructType:
		fields = tt.Fields
	case *ast.InterfaceType:
		fields = tt.Methods
	default:
		return
	}
	for _, fld := range fields.List {
		for _, n := range fld.Names {
			if n.IsExported() {
				check(s.Name.Name+"."+n.Name, fld.Doc, fld.Comment)
				break
			}
		}
		if len(fld.Names) == 0 { // embedded: documented like a field
			check(s.Name.Name+"."+receiverType(fld.Type), fld.Doc, fld.Comment)
		}
	}
}

func TestHygieneCitations(t *testing.T) {
	docs := map[string]bool{"WORKLOADS.md": true, "README.md": true, "examples/sim/README.md": true}
	for _, tc := range []struct {
		text  string
		cites bool
	}{
		{"As in YARN 3.3 (reference §2.4–§2.7): children are visited", true},
		{"Berth counts that window as full (§18\nitem 13).", true},
		{"the legacy greedy agent that the seed article walks through", true},
		{"an identical update (vector POL-X1: a 12 h reservation)", true},
		{"(vector POL-COT-19: 25 h at exactly 25 %)", true},
		{"Durable state (issue 11).", true},
		{"see schedulers-vectors.md for the cases", true},
		{"its forms (as in the reference):", true},
		{"the files in ../shared/real-inputs/sls", true},
		{"As YARN's CapacityScheduler.allocateContainersToNode does", false},
		{"See YARN-10981: the queue path is validated", false},
		{"a random seed of 42 gives the same stream", false},
		{"strings in UTF-8, with the checksum of SHA-256", false},
		{"specified in WORKLOADS.md, section W4", false},
		{"running the parts on a batch system: see README.md", false},
		{"examples/sim/README.md shows comparisons", false},
		{"it keeps no reference to the slice", false},
		{"the reference model of the property test", false},
		{"the issue is that YARN rounds down", false},
		{"checked in the reference model, a plain sort", false},
		{"the cluster's total (the calculator's reference for dominant shares)", false},
		{"the exact forms are listed in the reference.", true},
	} {
		got := citesUnshipped(tc.text, docs)
		if tc.cites {
			assert.NotEmpty(t, got, "%q should be flagged", tc.text)
		} else {
			assert.Empty(t, got, "%q should pass", tc.text)
		}
	}
}

func TestHygieneFuncLines(t *testing.T) {
	const src = `package p

func short() {
	a := 1
	_ = a
}

func table() []int {
	return []int{
		1,
		2,
		3,
	}
}

func code() []func() {
	return []func(){
		func() {},
		func() {},
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	require.NoError(t, err)
	got := map[string]int{}
	for _, d := range f.Decls {
		fn := d.(*ast.FuncDecl)
		got[fn.Name.Name] = funcBodyLines(fset, fn.Body)
	}
	// table: the return line counts, the three data lines and the closing
	// brace do not; code: its function literals count.
	assert.Equal(t, map[string]int{"short": 2, "table": 1, "code": 4}, got)
}

func TestHygieneAllowList(t *testing.T) {
	entries, err := parseAllowList("x.txt", []byte("# header\n\na/b.go:F  one reason\na/c.go:T.M\tanother\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a/b.go:F": "one reason", "a/c.go:T.M": "another"}, entries)

	_, err = parseAllowList("x.txt", []byte("a/b.go:F\n"))
	assert.ErrorContains(t, err, "no reason")
	_, err = parseAllowList("x.txt", []byte("a/b.go:F r\na/b.go:F s\n"))
	assert.ErrorContains(t, err, "twice")
}

package tools

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed read.md
var readDescription string

// readLineBytes is the longest line read shows whole.
const readLineBytes = 2000

// readParams are the arguments read takes.
func readParams() []param {
	return []param{
		{name: "path", kind: kindString, required: true, desc: "The file to read, relative to the working folder or absolute."},
		{name: "offset", kind: kindInteger, min: intPtr(1), desc: "The first line to show, counting from 1. Default 1."},
		{name: "limit", kind: kindInteger, min: intPtr(1), desc: "How many lines to show at most. Default: as many as fit the output limit."},
	}
}

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// readTool shows a text file with line numbers, or an image.
type readTool struct{ s *Session }

func (t *readTool) Definition() llm.Tool {
	return llm.Tool{Name: "read", Description: t.s.describe(readDescription), Schema: schema(readParams())}
}

func (t *readTool) Run(ctx context.Context, call Call) (Result, error) {
	var args readArgs
	if err := decodeArgs("read", call.Arguments, readParams(), &args); err != nil {
		return Result{}, err
	}
	path, err := t.s.resolve(args.Path, accessRead)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", args.Path, err)
	}
	shown := t.s.display(path)
	info, err := os.Stat(path)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", args.Path, notExistHint(err))
	}
	if info.IsDir() {
		return Result{}, fmt.Errorf("read %s: is a directory; use find to list its files", shown)
	}
	if !info.Mode().IsRegular() {
		return Result{}, fmt.Errorf("read %s: not a regular file (%s)", shown, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", shown, err)
	}
	defer f.Close()

	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Result{}, fmt.Errorf("read %s: %w", shown, err)
	}
	head = head[:n]
	complete := int64(n) == info.Size()
	if mt := imageType(head); mt != "" {
		return t.image(f, path, shown, mt, info.Size())
	}
	if why := binaryReason(head, complete); why != "" {
		return Result{}, fmt.Errorf("read %s: binary file (%s); read shows only text and images (png, jpeg, gif, webp)", shown, why)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Result{}, fmt.Errorf("read %s: %w", shown, err)
	}
	return t.text(ctx, f, path, shown, args)
}

func (t *readTool) image(f *os.File, path, shown, mediaType string, size int64) (Result, error) {
	if size > int64(t.s.opts.MaxImageBytes) {
		return Result{}, fmt.Errorf("read %s: image of %s is larger than the %s limit", shown, sizeString(size), sizeString(int64(t.s.opts.MaxImageBytes)))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Result{}, fmt.Errorf("read %s: %w", shown, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(t.s.opts.MaxImageBytes)+1))
	if err != nil {
		return Result{}, fmt.Errorf("read %s: %w", shown, err)
	}
	return Result{
		Content: []llm.Block{
			llm.Text(fmt.Sprintf("Image %s (%s, %s)", shown, mediaType, sizeString(int64(len(data))))),
			llm.Image(mediaType, base64.StdEncoding.EncodeToString(data)),
		},
		Details: Details{Path: path},
	}, nil
}

func (t *readTool) text(ctx context.Context, f io.Reader, path, shown string, args readArgs) (Result, error) {
	from := max(args.Offset, 1)
	to := -1 // last line wanted; -1 means to the end
	if args.Limit > 0 {
		to = from + args.Limit - 1
	}
	h := sha256.New()
	r := bufio.NewReaderSize(io.TeeReader(f, h), 64*1024)

	type shownLine struct {
		n       int
		text    string
		dropped int
	}
	var lines []shownLine
	keep := readLineBytes
	if t.s.opts.Redact != nil {
		keep += redactSlack
	}
	outBytes := 0
	capped := false // the output limits stopped the listing early
	total := 0
	for {
		if total%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, fmt.Errorf("read %s: %w", shown, err)
			}
		}
		line, length, err := readLine(r, keep)
		if err != nil && !errors.Is(err, io.EOF) {
			return Result{}, fmt.Errorf("read %s: %w", shown, err)
		}
		if length == 0 && errors.Is(err, io.EOF) {
			break
		}
		total++
		if total >= from && (to < 0 || total <= to) && !capped {
			text := strings.ToValidUTF8(strings.TrimSuffix(line, "\r"), "\uFFFD")
			dropped := length - len(line)
			if redact := t.s.opts.Redact; redact != nil && len(text) > readLineBytes {
				// Only a line that will be cut: a short one is redacted
				// with the whole output, where a secret that spans lines
				// (a private key block) is seen whole.
				var more int
				text, more = cutLine(redact(text), readLineBytes)
				dropped += more
			}
			cost := len(text) + 8
			if len(lines) > 0 && (len(lines) >= t.s.opts.MaxLines || outBytes+cost > t.s.opts.MaxBytes) {
				capped = true
			} else {
				lines = append(lines, shownLine{n: total, text: text, dropped: dropped})
				outBytes += cost
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])

	if total == 0 {
		if from > 1 {
			return Result{}, fmt.Errorf("read %s: offset %d is past the end of the file, which is empty", shown, from)
		}
		t.s.recordSeen(path, sum, lineRange{1, 1})
		return Result{Content: []llm.Block{llm.Text("(empty file)")}, Details: Details{Path: path}}, nil
	}
	if from > total {
		return Result{}, fmt.Errorf("read %s: offset %d is past the end of the file, which has %s", shown, from, plural(total, "line"))
	}
	last := lines[len(lines)-1].n
	width := len(fmt.Sprint(last))
	var sb strings.Builder
	anyCut := false
	for _, l := range lines {
		fmt.Fprintf(&sb, "%*d\t%s", width, l.n, l.text)
		if l.dropped > 0 {
			anyCut = true
			fmt.Fprintf(&sb, "… [line truncated: %d more bytes]", l.dropped)
		}
		sb.WriteByte('\n')
	}
	if last < total {
		more := "lines"
		if total-last == 1 {
			more = "line"
		}
		fmt.Fprintf(&sb, "[... %d more %s; use offset=%d to continue]\n", total-last, more, last+1)
	}
	if anyCut {
		fmt.Fprintf(&sb, "[lines longer than %d bytes were cut; use bash (for example cut -c or sed) to see them whole]\n", readLineBytes)
	}
	t.s.recordSeen(path, sum, lineRange{from, last})
	return Result{
		Content: []llm.Block{llm.Text(sb.String())},
		Details: Details{Path: path, Truncated: capped || anyCut},
	}, nil
}

// readLine reads one line from r and returns at most keep bytes of it
// (without the "\n"), the line's whole length in bytes, and io.EOF when the
// input ended (possibly with a last line that had no "\n").
func readLine(r *bufio.Reader, keep int) (string, int, error) {
	var sb strings.Builder
	length := 0
	for {
		chunk, err := r.ReadSlice('\n')
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		length += len(body)
		if room := keep - sb.Len(); room > 0 {
			if len(body) > room {
				sb.Write(body[:room])
			} else {
				sb.Write(body)
			}
		}
		switch {
		case err == nil:
			return fixCut(sb.String(), length), length, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return fixCut(sb.String(), length), length, err
		}
	}
}

// fixCut backs the kept prefix of a longer line off a multi-byte
// character it cut in two.
func fixCut(kept string, length int) string {
	if len(kept) == length {
		return kept
	}
	return string(trimPartialRune([]byte(kept)))
}

// notExistHint makes a missing-file error say so plainly.
func notExistHint(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("no such file or directory")
	}
	return err
}

package transcript

import "bufio"

// nextTextLine appends the next line of in, newline included, to buf. At
// the end of the file it returns io.EOF with what is left, which is the
// last line without its newline, or nothing.
func nextTextLine(in *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

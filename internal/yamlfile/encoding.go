package yamlfile

import "bytes"

// bom is the UTF-8 byte-order mark some editors put at the start of a
// file. It is not text: left in place it would become part of the first
// key, which then matches nothing, invisibly.
var bom = []byte("\uFEFF")

// stripBOM returns data without a leading UTF-8 byte-order mark.
func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// checkUTF16 returns an error naming the file when data looks like UTF-16
// text (a UTF-16 byte-order mark, or a NUL byte beside an ASCII one in its
// first two bytes), which a settings file must not be: vigil reads UTF-8.
func checkUTF16(name string, data []byte) error {
	utf16 := bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) ||
		len(data) >= 2 && (data[0] == 0) != (data[1] == 0) && data[0] < 0x80 && data[1] < 0x80
	if !utf16 {
		return nil
	}
	return &Error{File: name, Line: 1, Column: 1, Msg: "is UTF-16 text, not UTF-8, which vigil reads: save it as UTF-8"}
}

// prepare is data as the YAML library should see it: without a
// byte-order mark, and refused when it is UTF-16.
func prepare(name string, data []byte) ([]byte, error) {
	if err := checkUTF16(name, data); err != nil {
		return nil, err
	}
	return stripBOM(data), nil
}

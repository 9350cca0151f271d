// Package yamlfile reads and decodes user-edited YAML (and JSON) settings
// files strictly and reports every problem as FILE:LINE:COL: KEY: message,
// so a person can find and fix it.
//
// # Hostile files
//
// A settings file may come from a cloned repository (.vigil/config.yml),
// so it is treated as hostile until it has passed the limits, all checked
// before the YAML library builds anything from it:
//
//   - [ReadFile] reads only a regular file, without blocking on a named
//     pipe or a device in its place, and no more than [MaxSize] bytes;
//   - [Parse] refuses, in one pass over the bytes, a file over [MaxSize],
//     one that is not UTF-8 (UTF-16 is named as such; a leading UTF-8
//     byte-order mark is dropped, here and by [ReadFile]) or holds control
//     characters, and one with more
//     than [MaxTokens] tokens; then, over the lexer's tokens, nesting deeper
//     than [MaxDepth] and block mappings of more than [MaxKeys] keys; and,
//     over the parsed tree, aliases that would expand it past [MaxNodes]
//     values (a "billion laughs").
//
// The limits are far above any real settings file and keep the library's
// work on a file at every limit under a second and a hundred megabytes.
// [Decode] checks them too, so every caller is covered.
package yamlfile

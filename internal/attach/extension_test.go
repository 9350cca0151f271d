package attach

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// listTree lists every path under root with its content (folders as
// "/"), to compare a tree before and after.
func listTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = string(b)
		return nil
	})
	return out
}

// TestExtensionSource: the written extension is the embedded file with
// only its configuration line changed, which reads back as written.
func TestExtensionSource(t *testing.T) {
	cfg := ExtensionConfig{Agent: "omp", Command: []string{"/opt/Ann's bin/vigil-hook", "omp"}, Created: []string{"/p/.omp/extensions", "/p/.omp"}}
	src := ExtensionSource(cfg)
	got, ok, err := ParseExtension(src)
	if !ok || err != nil || !reflect.DeepEqual(got, cfg) {
		t.Fatalf("ParseExtension = %+v, %v, %v; want %+v", got, ok, err, cfg)
	}
	var diff []string
	a, b := strings.Split(string(extensionTemplate), "\n"), strings.Split(string(src), "\n")
	if len(a) != len(b) {
		t.Fatalf("%d lines, the embedded file %d", len(b), len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			diff = append(diff, b[i])
		}
	}
	if len(diff) != 1 || !strings.HasPrefix(diff[0], "const VIGIL: ") || !strings.Contains(diff[0], `"command":["/opt/Ann's bin/vigil-hook","omp"]`) {
		t.Fatalf("changed lines: %q", diff)
	}
	// The file as shipped: vigil's marker first, the agents' events it
	// subscribes to (the tool boundary at turn_end, its notes carried by
	// the context event), follow-ups and the unix socket.
	for _, want := range []string{`pi.on("turn_end"`, `pi.on("context"`, `pi.on("before_agent_start"`, `pi.on("session_shutdown"`, `"followUp"`, `net.createConnection({ path: sock })`, "Vigil-Deadline-Ms", "waits_ms"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the extension lacks %s", want)
		}
	}
	if _, ok, _ := ParseExtension([]byte("export default function () {}\n")); ok {
		t.Error("another extension read as vigil's")
	}
	if _, ok, err := ParseExtension(append(append([]byte(nil), extensionMarker...), "\nconst VIGIL = /*vigil:config*/ {\"agent\": /*vigil:end*/"...)); !ok || err == nil {
		t.Errorf("a broken configuration line: ok %v err %v", ok, err)
	}
}

// TestAttachDetachExtension: attach writes the extension into the
// extensions folder (creating the folders), says so again only when the
// command changes, status reads it, and detach leaves the tree as it
// was, whether the folders existed or not.
func TestAttachDetachExtension(t *testing.T) {
	for _, c := range []struct {
		name  string
		a     Agent
		s     Scope
		setup func(root string)
	}{
		{"pi project, no folders", Pi, Project, func(string) {}},
		{"omp user, no folders", Omp, User, func(string) {}},
		{"pi project, other extensions", Pi, Project, func(root string) {
			os.MkdirAll(filepath.Join(root, "proj", ".pi", "extensions"), 0o755)
			os.WriteFile(filepath.Join(root, "proj", ".pi", "extensions", "mine.ts"), []byte("export default function () {}\n"), 0o644)
			os.WriteFile(filepath.Join(root, "proj", ".pi", "settings.json"), []byte("{}\n"), 0o644)
		}},
		{"omp project, an empty folder", Omp, Project, func(root string) {
			os.MkdirAll(filepath.Join(root, "proj", ".omp", "extensions"), 0o755)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			loc := Locations{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj")}
			os.MkdirAll(loc.Home, 0o755)
			os.MkdirAll(loc.Project, 0o755)
			c.setup(root)
			before := listTree(t, root)
			file, err := loc.File(c.a, c.s)
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(root, "bin", "vigil-hook")
			p, err := PlanExtension(file, c.a, bin)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Changed() || p.Changes[0].Action != Added || p.Changes[0].Now != bin+" "+string(c.a) {
				t.Fatalf("changes %+v", p.Changes)
			}
			if !strings.HasPrefix(p.Diff(), "--- /dev/null\n") {
				t.Errorf("diff of a new file:\n%.200s", p.Diff())
			}
			if err := p.WriteExtension(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg, ok, err := ParseExtension(data)
			if !ok || err != nil || cfg.Agent != string(c.a) || !reflect.DeepEqual(cfg.Command, []string{bin, string(c.a)}) {
				t.Fatalf("written config %+v %v %v", cfg, ok, err)
			}
			// Status: one entry per forwarded event, the binary missing
			// (there is no such file).
			var at *Attachment
			all, err := Status(loc)
			if err != nil {
				t.Fatal(err)
			}
			for i := range all {
				if all[i].File == file {
					at = &all[i]
				}
			}
			if at == nil || !at.Attached() || at.Err != nil || len(at.Entries) != len(ExtensionEvents) || len(at.Binaries) != 1 || at.Binaries[0].Exists {
				t.Fatalf("status %+v", at)
			}
			// Again with the same binary: nothing to do; with vigil instead
			// of vigil-hook: updated, the folders record kept.
			if p, err := PlanExtension(file, c.a, bin); err != nil || p.Changed() {
				t.Fatalf("attach again: %v, %+v", err, p.Changes)
			}
			vigil := filepath.Join(root, "bin", "vigil")
			p, err = PlanExtension(file, c.a, vigil)
			if err != nil || !p.Changed() || p.Changes[0].Action != Updated {
				t.Fatalf("attach with vigil: %v %+v", err, p)
			}
			if err := p.WriteExtension(); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(file)
			if got, _, _ := ParseExtension(data); !reflect.DeepEqual(got.Command, []string{vigil, "hook", string(c.a)}) || !reflect.DeepEqual(got.Created, cfg.Created) {
				t.Fatalf("updated config %+v, was %+v", got, cfg)
			}
			d, err := PlanExtensionDetach(file)
			if err != nil || !d.Changed() || d.Changes[0].Action != Removed {
				t.Fatalf("detach: %v %+v", err, d)
			}
			if err := d.WriteExtension(); err != nil {
				t.Fatal(err)
			}
			if after := listTree(t, root); !reflect.DeepEqual(after, before) {
				t.Fatalf("after detach:\n%v\nbefore:\n%v", after, before)
			}
			if d, err := PlanExtensionDetach(file); err != nil || d.Changed() {
				t.Fatalf("detach again: %v %+v", err, d)
			}
		})
	}
}

// TestExtensionLeavesOthersAlone: a vigil.ts that is not vigil's is
// neither overwritten nor removed, and status does not count it.
func TestExtensionLeavesOthersAlone(t *testing.T) {
	root := t.TempDir()
	loc := Locations{Home: root, Project: root}
	file, _ := loc.File(Pi, Project)
	os.MkdirAll(filepath.Dir(file), 0o755)
	mine := "// my own vigil\nexport default function () {}\n"
	os.WriteFile(file, []byte(mine), 0o644)
	if _, err := PlanExtension(file, Pi, "/bin/vigil-hook"); err == nil || !strings.Contains(err.Error(), "not vigil's extension") {
		t.Errorf("attach over another file: %v", err)
	}
	if _, err := PlanExtensionDetach(file); err == nil {
		t.Error("detach of another file")
	}
	if b, _ := os.ReadFile(file); string(b) != mine {
		t.Errorf("the file changed: %q", b)
	}
	if at := statusOf(Pi, Project, file); at.Attached() || at.Err != nil {
		t.Errorf("status %+v", at)
	}
	// A folder where the file would go.
	dir, _ := loc.File(Omp, Project)
	os.MkdirAll(dir, 0o755)
	if _, err := PlanExtension(dir, Omp, "/bin/vigil-hook"); err == nil {
		t.Error("attach over a folder")
	}
}

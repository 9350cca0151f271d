package rules

import "testing"

func TestChurn(t *testing.T) {
	serve := func(how string) st { return do(sh(how, "[1] 4242", false)) }
	kill := func(cmd string) st { return do(sh(cmd, "", false)) }
	runCases(t, "process-churn", []detectorCase{
		{"the same server started three times", []st{
			serve("npm run dev > dev.log 2>&1 &"), do(sh("curl -s localhost:3000", "", true)),
			serve("cd web && npm run dev > dev.log 2>&1 &"), do(sh("curl -s localhost:3000", "", true)),
			serve("nohup npm run dev > dev.log 2>&1 &"),
		}, []int{5}},
		{"kill, pkill, pkill -9", []st{
			kill("kill 4242"), do(sh("lsof -i :3000", "node 4243", false)), kill("pkill -f 'next dev'"), kill("pkill -9 -f node"),
		}, []int{4}},
		{"a fix between starts is progress", []st{
			serve("python app.py &"),
			do(tool("edit", map[string]any{"path": "app.py", "old_text": "port=80", "new_text": "port=8080"}, "ok", false)),
			serve("python app.py &"),
			do(tool("edit", map[string]any{"path": "app.py", "old_text": "debug=1", "new_text": "debug=0"}, "ok", false)),
			serve("python app.py &"),
		}, nil},
		{"two kills are housekeeping", []st{kill("kill %1"), do(sh("ls", "a", false)), kill("pkill node")}, nil},
		{"kills far apart", []st{
			kill("kill 1"), serve("a &"), do(sh("ls", "1", false)), do(sh("ls b", "2", false)), do(sh("ls c", "3", false)), do(sh("ls d", "4", false)),
			kill("kill 2"), do(sh("ls e", "5", false)), do(sh("ls f", "6", false)), do(sh("ls g", "7", false)), do(sh("ls h", "8", false)), do(sh("ls i", "9", false)),
			kill("kill 3"),
		}, nil},
		{"a foreground && chain is not a background job", []st{
			do(sh("make && ./run", "ok", false)), do(sh("make && ./run", "ok 2", false)), do(sh("make && ./run", "ok 3", false)),
		}, nil},
	})
}

package advisor

import "github.com/vigil-dev/vigil/llm"

// ModelUsage is the usage of the calls one model served.
type ModelUsage struct {
	// Model names it as provider/model ([Options.ModelName], a
	// [Promotion]'s Name, or [Runtime.SetModel]'s name).
	Model string
	Usage llm.Usage
}

// addUsage counts u, spent by the model named name; r.mu must not be held.
func (r *Runtime) addUsage(name string, u llm.Usage) {
	if u == (llm.Usage{}) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status.Usage = r.status.Usage.Add(u)
	for i := range r.status.Models {
		if r.status.Models[i].Model == name {
			r.status.Models[i].Usage = r.status.Models[i].Usage.Add(u)
			return
		}
	}
	r.status.Models = append(r.status.Models, ModelUsage{Model: name, Usage: u})
}

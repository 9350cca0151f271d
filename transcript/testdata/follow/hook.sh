#!/bin/sh
# hook.sh: a stand-in for vigil's hooks in the recordings of this folder (see
# record.sh). Claude Code and Codex run it for every hook event with the event's
# JSON on stdin; it answers with fixed text, so the recordings show where each
# kind of injected text lands in the agent's transcript:
#
#   SessionStart (startup, resume)  additionalContext that is not advice
#   SessionStart (compact)          additionalContext: one <advisory> element
#   UserPromptSubmit                additionalContext: one <advisory> element
#   PostToolUse                     additionalContext: one <advisory> element
#   PostToolUseFailure              additionalContext: two <advisory> elements
#   Stop                            once per recording, when stop_hook_active is
#                                   false: {"decision":"block","reason":<advisory>}
#
# HOOK_STATE names a folder where the hook remembers that it blocked a Stop.
# The advisory elements have the shape advisor.FormatAdvisories writes.
input=$(cat)
event=$(printf '%s' "$input" | sed -n 's/.*"hook_event_name": *"\([A-Za-z]*\)".*/\1/p')
g="weigh, don't blindly obey"
advice() { # advice SEVERITY NOTE: one element, JSON-escaped
	printf '<advisory severity=\\"%s\\" guidance=\\"%s\\">\\n%s\\n</advisory>' "$1" "$g" "$2"
}
context() { # context EVENT TEXT
	printf '{"hookSpecificOutput":{"hookEventName":"%s","additionalContext":"%s"}}\n' "$1" "$2"
}
case "$event" in
SessionStart)
	case "$input" in
	*'"source":"compact"'* | *'"source": "compact"'*)
		context SessionStart "$(advice concern 'Standing note: the user asked for a report, not for fixes.')" ;;
	*)
		context SessionStart 'Project note: this folder is a scratch area for shell experiments.' ;;
	esac ;;
UserPromptSubmit)
	context UserPromptSubmit "$(advice concern 'Say what each command printed, not only whether it worked.')" ;;
PostToolUse)
	context PostToolUse "$(advice concern 'Check what the command printed before the next one.')" ;;
PostToolUseFailure)
	context PostToolUseFailure "$(advice concern 'The command failed; read its error before retrying.')\\n$(advice blocker 'Do not retry the same failing command unchanged.')" ;;
Stop)
	case "$input" in
	*'"stop_hook_active":true'* | *'"stop_hook_active": true'*) exit 0 ;;
	esac
	[ -n "$HOOK_STATE" ] && [ ! -e "$HOOK_STATE/stop-blocked" ] || exit 0
	: >"$HOOK_STATE/stop-blocked"
	printf '{"decision":"block","reason":"%s"}\n' "$(advice concern 'Before you stop: tell the user which command failed and why.')" ;;
esac
exit 0

# SPDX-License-Identifier: GPL-2.0
# mk/completion.bash — bash completion for cookiekit.  In a checkout:
#     source mk/completion.bash
# (make install puts it in share/bash-completion/completions, where
# bash-completion loads it for each installed command).
#
#   make TAB              the targets `make help` names, and the variables
#   make KERNEL=TAB       the variants of kernel/series (before after stock...)
#   make lab-check LAB=TAB   the labs (labs/NN-topic: 01 02 ...)
#   cookie-top --TAB      a command's options, read from its --help (once)
#   vm/run --kernel TAB   the variants again
# Everything is read from the checkout (the directory make would run in),
# not listed here, so a new lab, variant, target or option completes as soon
# as it exists.  Outside a cookiekit checkout, make completes as it did.

# _cookiekit_top: the checkout in the current directory, or nothing.
_cookiekit_top() {
	[ -f kernel/series ] && [ -f mk/completion.bash ] && [ -f Makefile ] && pwd
}

_cookiekit_variants() {
	awk '/^#[[:space:]]*variants:/ { for (i = 3; i <= NF; i++) print $i }' "$1/kernel/series" 2>/dev/null
}

_cookiekit_labs() {
	local d
	for d in "$1"/labs/[0-9][0-9]-*/; do
		[ -d "$d" ] && d=${d%/} && d=${d##*/} && echo "${d%%-*}"
	done
}

# The word being completed, whole: bash splits "LAB=0" at '=' (COMP_WORDBREAKS).
_cookiekit_word() {
	local line=${COMP_LINE:0:COMP_POINT}
	echo "${line##*[[:space:]]}"
}

# _cookiekit_reply VAR= VALUE...: the values of VAR= that start with what is typed.
_cookiekit_reply_var() {
	local var=$1 typed=$2 v
	shift 2
	COMPREPLY=()
	for v in "$@"; do
		[[ $v == "${typed#"$var"}"* ]] || continue
		if [[ $COMP_WORDBREAKS == *=* ]]; then COMPREPLY+=("$v"); else COMPREPLY+=("$var$v"); fi
	done
}

_cookiekit_make() {
	local top word
	top=$(_cookiekit_top)
	if [ -z "$top" ]; then
		if declare -F _cookiekit_make_orig >/dev/null; then _cookiekit_make_orig "$@"; fi
		return
	fi
	word=$(_cookiekit_word)
	case $word in
	KERNEL=*) _cookiekit_reply_var KERNEL= "$word" $(_cookiekit_variants "$top"); return ;;
	LAB=*) _cookiekit_reply_var LAB= "$word" $(_cookiekit_labs "$top"); return ;;
	TRACE=*) _cookiekit_reply_var TRACE= "$word" 1; return ;;
	*=*) COMPREPLY=(); return ;;
	esac
	# Targets: what `make help` names; variables: what the Makefiles read.
	local help targets vars
	help=$(make -s -C "$top" help 2>/dev/null | sed -n 's/^ *make //p' | sed 's/  .*//')
	targets=$(tr ' ' '\n' <<< "$help" | grep '^[a-z][a-z0-9-]*$' | sort -u)
	vars=$(grep -o '[A-Z][A-Z_]*=' <<< "$help" | sort -u)
	COMPREPLY=($(compgen -W "$targets $vars" -- "$word"))
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	return 0
}

# Options of a kit command, from its --help: --long and -s words at a line's
# start (argp, argparse and the scripts' own usage lines alike).
declare -A _cookiekit_opts_cache 2>/dev/null
_cookiekit_cmd() {
	local cmd=$1 word prev top path opts
	word=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	top=$(_cookiekit_top)
	case $prev in
	--kernel)
		COMPREPLY=($(compgen -W "$(_cookiekit_variants "${top:-.}")" -- "$word")); return ;;
	esac
	if [[ $word != -* ]]; then
		COMPREPLY=($(compgen -f -- "$word")); return
	fi
	for path in "$cmd" "$top/$cmd" "$top/build/bin/$cmd" "$top/vm/guest/bin/$cmd" "$(type -P "$cmd")"; do
		[ -f "$path" ] && [ -x "$path" ] && break
	done
	if [ -z "${_cookiekit_opts_cache[$path]:-}" ]; then
		_cookiekit_opts_cache[$path]=$("$path" --help 2>&1 </dev/null |
			grep -o -- '\(^\|[[ ,]\)--\?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[[ ,]//' | sort -u | tr '\n' ' ')
	fi
	COMPREPLY=($(compgen -W "${_cookiekit_opts_cache[$path]}" -- "${word%%=*}"))
}

# Keep the completion make had (bash-completion's _make) for other projects.
if [ "$(complete -p make 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')" != _cookiekit_make ]; then
	_cookiekit_make_prev=$(complete -p make 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	if [ -n "$_cookiekit_make_prev" ]; then
		eval "_cookiekit_make_orig() { $_cookiekit_make_prev \"\$@\"; }"
	fi
fi
complete -F _cookiekit_make make

# The commands: build/bin's (by name, as installed, and by path), the
# guest's, and the tree's own executables (vm/run, labs/lab-check...).
_cookiekit_register() {
	local top=$1 f rel names=()
	for f in "$top"/build/bin/* "$top"/vm/guest/bin/ck-*; do
		[ -x "$f" ] && names+=("${f##*/}" "${f#"$top"/}")
	done
	if [ -d "$top/.git" ] || [ -f "$top/.git" ]; then
		while read -r rel; do names+=("$rel" "./$rel"); done < <(git -C "$top" ls-files -s |
			awk '$1 == "100755" && $4 !~ /^tests\// { print $4 }')
	fi
	[ ${#names[@]} -eq 0 ] || complete -F _cookiekit_cmd -o default "${names[@]}"
}
_cookiekit_register "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." 2>/dev/null && pwd)"
# Installed (share/bash-completion/completions): make install links each
# command's name there to this file; complete them all.
case ${BASH_SOURCE[0]} in
*/bash-completion/completions/*)
	for _cookiekit_l in "$(dirname "${BASH_SOURCE[0]}")"/*; do
		[ "$(readlink "$_cookiekit_l")" = cookiekit ] &&
			complete -F _cookiekit_cmd -o default "${_cookiekit_l##*/}"
	done
	unset _cookiekit_l ;;
esac

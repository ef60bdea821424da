# SPDX-License-Identifier: GPL-2.0
# mk/dist.mk — what users expect around the kit: man pages, make install,
# clean, distclean, cache-prune, the licence notice of the static binaries.
# Included by the top Makefile after the fragments (TOP, BUILD, the tools).
#   make man                      build/man/man1/*.1 (mk/mkman; man -l works there)
#   make install [PREFIX=/usr/local] [DESTDIR=]   build/bin's commands, their
#                                 man pages, bash completion, LICENSE, the notice
#   make uninstall                the same files removed
#   make clean                    build/ (the cache stays)
#   make distclean                build/ and this checkout's entries in the cache
#   make cache-prune [DAYS=7]     old keys in $(COOKIEKIT_CACHE), sizes freed
#   make cache-du                 what the cache holds, part by part
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/cookiekit
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install

.PHONY: man install uninstall clean distclean cache-prune cache-du
man: tools bpf tui
	@$(TOP)/mk/mkman

# The static binaries (cookie-trace, ring-floor: libbpf, libelf, zlib and
# glibc; cookie-groups and build/bin32: glibc) ship with the licences of what
# they carry, taken from the Debian packages they were linked from.
CK_STATIC_PKGS := libbpf1 libelf1 zlib1g libc6
$(BUILD)/doc/NOTICE.static: $(TOP)/mk/dist.mk $(TOP)/mk/packages.txt
	@mkdir -p $(@D)
	@{ echo "cookiekit's static binaries carry code of other projects:"; \
	   echo "  cookie-trace, ring-floor: libbpf, libelf (elfutils), zlib, glibc"; \
	   echo "  cookie-groups, build/bin32/* (the guest's i386 probes): glibc"; \
	   echo "linked from these Debian packages (their sources: apt-get source PACKAGE=VERSION):"; \
	   for p in $(CK_STATIC_PKGS); do echo "  $$p $$(dpkg-query -W -f='$${Version}' $$p)"; done; \
	   echo "Each package's copyright file follows, with its licence."; \
	   for p in $(CK_STATIC_PKGS); do echo; echo "==== $$p: /usr/share/doc/$$p/copyright"; \
	     cat /usr/share/doc/$$p/copyright; done; } > $@.tmp && mv $@.tmp $@
bpf: $(BUILD)/doc/NOTICE.static
TEST_DEPS += man
check: man

install: tools bpf tui man
	$(INSTALL) -m 0755 -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR)
	@set -e; for f in $(BUILD)/bin/*; do n=$${f##*/}; \
		echo "  $(DESTDIR)$(BINDIR)/$$n"; $(INSTALL) -m 0755 $$f $(DESTDIR)$(BINDIR)/$$n; \
		$(INSTALL) -m 0644 $(BUILD)/man/man1/$$n.1 $(DESTDIR)$(MANDIR)/man1/$$n.1; \
		ln -sfn cookiekit $(DESTDIR)$(BASHCOMPDIR)/$$n; done
	$(INSTALL) -m 0644 $(TOP)/mk/completion.bash $(DESTDIR)$(BASHCOMPDIR)/cookiekit
	$(INSTALL) -m 0644 $(TOP)/LICENSE $(BUILD)/doc/NOTICE.static $(DESTDIR)$(DOCDIR)/

uninstall:
	@for f in $(BUILD)/bin/*; do n=$${f##*/}; \
		rm -f $(DESTDIR)$(BINDIR)/$$n $(DESTDIR)$(MANDIR)/man1/$$n.1 $(DESTDIR)$(BASHCOMPDIR)/$$n; done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/cookiekit $(DESTDIR)$(DOCDIR)/LICENSE $(DESTDIR)$(DOCDIR)/NOTICE.static
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null

# build/ holds links into the cache, never the cache itself: clean leaves it.
clean:
	rm -rf $(BUILD)
distclean:
	@$(TOP)/mk/cache forget
	rm -rf $(BUILD)
cache-prune:
	@$(TOP)/mk/cache prune $(if $(DAYS),--days $(DAYS))
cache-du:
	@$(TOP)/mk/cache du

# SPDX-License-Identifier: GPL-2.0
#
# pghot: hot page tracking and promotion for tiered memory.
# `make help` lists the targets; README.md explains them.

SHELL := /bin/bash
S := scripts

.PHONY: help run check deps base tree export export-check kernel kernel-debug \
	kernel-precise kernel-nopghot kernels initramfs selftests kunit vm shell \
	w1 checkpatch htmldocs bisect-check bench bench-cost clean distclean

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## run            install deps, fetch base, apply series, build, boot the tiered VM, demo
run: deps tree-if-missing kernel initramfs
	$(S)/vm.sh --timeout 900 -- /bench/demo.sh

## check          every test; ends with "N passed, N failed"
check: deps
	$(S)/check.sh

## deps           install missing Debian build dependencies (root)
deps:
	$(S)/deps.sh

## base           fetch the pinned base source into the cache (LINUX_SRC= overrides)
base:
	$(S)/fetch-base.sh

## tree           assemble build/linux: base + patches/series (FORCE=1 discards unexported work)
tree:
	$(S)/tree.sh

.PHONY: tree-if-missing
tree-if-missing:
	@[ -d build/linux/.git ] || $(S)/tree.sh

## export         write build/linux's commits back into patches/
export:
	$(S)/export.sh

## export-check   fail if build/linux holds commits or edits not in patches/
export-check:
	$(S)/export.sh --check

## kernel         build the test kernel (build/obj-test)
kernel: tree-if-missing
	$(S)/build-kernel.sh test

## kernel-debug   build the debug kernel (KASAN, lockdep, DEBUG_VM)
kernel-debug: tree-if-missing
	$(S)/build-kernel.sh debug

## kernel-precise build the kernel with CONFIG_PGHOT_PRECISE
kernel-precise: tree-if-missing
	$(S)/build-kernel.sh precise

## kernel-nopghot build the kernel with CONFIG_PGHOT=n
kernel-nopghot: tree-if-missing
	$(S)/build-kernel.sh nopghot

## initramfs      busybox initramfs with the selftests and bench programs
initramfs: tree-if-missing
	$(S)/mkinitramfs.sh

## selftests      run the pghot kselftests in the VM (KERNEL=test|debug|..., TOPOLOGY=small|seed|twodram)
KERNEL ?= test
TOPOLOGY ?= small
selftests: initramfs
	$(S)/vm.sh --kernel $(KERNEL) --topology $(TOPOLOGY) --timeout 1800 -- run-selftests $(TESTS)

## kunit          boot KERNEL and print its KUnit results
kunit: initramfs
	$(S)/vm.sh --kernel $(KERNEL) --log build/kunit -- true; \
	sed -E 's/^\[ *[0-9.]+\] //' build/kunit/console.log | grep -E '^ *(KTAP|# Subtest|(not )?ok |# Totals)'

## vm             run CMD="..." in the VM (KERNEL=, TOPOLOGY=)
vm: initramfs
	$(S)/vm.sh --kernel $(KERNEL) --topology $(TOPOLOGY) -- '$(CMD)'

## shell          interactive shell in the VM (exit with poweroff -f)
shell: initramfs
	$(S)/vm.sh --kernel $(KERNEL) --topology $(TOPOLOGY) --shell

## w1             W=1 on the lines the series touches
w1:
	$(S)/w1-check.sh

## checkpatch     checkpatch --strict on every patch
checkpatch:
	@for p in $$(grep -v '^#' patches/series); do echo "== $$p"; \
	  (cd build/linux && PATH=/usr/bin:$$PATH ./scripts/checkpatch.pl --strict ../../patches/$$p) | tail -n 1; done

## bisect-check   apply the series one patch at a time; each must build (test config, ccache)
bisect-check: tree-if-missing
	$(S)/bisect-check.sh

## htmldocs       build Documentation/admin-guide/mm; fail on warnings the base tree lacks
htmldocs: tree-if-missing
	$(S)/htmldocs.sh

## bench-cost     page alloc/free cost: nopghot vs pghot off vs on (BENCH_COST_ARGS)
bench-cost: deps tree-if-missing kernel kernel-nopghot
	$(S)/bench-cost.sh $(BENCH_COST_ARGS)

## bench          compare the promotion mechanisms in the tiered VM (BENCH=quick|full|smoke)
BENCH ?= quick
bench: deps tree-if-missing kernel
	$(S)/bench.sh --$(BENCH) --kernel $(KERNEL) $(BENCH_ARGS)

## clean          remove build/ (the cache of base sources and ccache stays)
clean:
	rm -rf build

## distclean      also remove the cached base source
distclean: clean
	rm -rf $${XDG_CACHE_HOME:-$$HOME/.cache}/pghot

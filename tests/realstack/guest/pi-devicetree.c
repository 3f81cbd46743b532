// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/device-tree/model and /proc/device-tree/system/linux,revision, as a
 * Raspberry Pi's kernel shows them from the device tree its firmware hands it.
 *
 * Debian's x86-64 kernel has no device tree (CONFIG_OF is not set), so the test
 * VM of tests/realstack loads this module to be read as a Pi is read: the box
 * (pads/pifactory.py) and gpiozero (its board table) open these two files and
 * nothing else. The values are module parameters (/etc/modprobe.d/).
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

static char *model = "Raspberry Pi Zero 2 W Rev 1.0";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "the board's model, as the Pi's firmware names it");

static uint revision = 0x902120;
module_param(revision, uint, 0444);
MODULE_PARM_DESC(revision, "the board's revision code (0x902120: Zero 2 W 1.0)");

static struct proc_dir_entry *tree;

static int model_show(struct seq_file *m, void *v)
{
	/* a device-tree string property: its bytes and the closing NUL */
	seq_write(m, model, strlen(model) + 1);
	return 0;
}

static int revision_show(struct seq_file *m, void *v)
{
	/* a device-tree cell: 32 bits, big-endian */
	__be32 cell = cpu_to_be32(revision);

	seq_write(m, &cell, sizeof(cell));
	return 0;
}

static int __init pi_devicetree_init(void)
{
	struct proc_dir_entry *system;

	tree = proc_mkdir("device-tree", NULL);
	if (!tree)
		return -ENOMEM;
	system = proc_mkdir("system", tree);
	if (!system || !proc_create_single("model", 0444, tree, model_show) ||
	    !proc_create_single("linux,revision", 0444, system, revision_show)) {
		proc_remove(tree);
		return -ENOMEM;
	}
	return 0;
}

static void __exit pi_devicetree_exit(void)
{
	proc_remove(tree);
}

module_init(pi_devicetree_init);
module_exit(pi_devicetree_exit);
MODULE_DESCRIPTION("A Raspberry Pi's model and revision in /proc/device-tree, for a test VM");
MODULE_LICENSE("GPL");

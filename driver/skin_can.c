// SPDX-License-Identifier: GPL-2.0
/*
 * skin_can.c - the CAN side of a live patch: receive, timer, board control
 *
 * A live patch follows its interface by name through netdevice
 * notifications: present at enable, appearing later, going down and up,
 * deleted and re-created (a USB adapter unplugged and back), renamed.
 * While bound it has two receive filters with the CAN core: its board's
 * data frames (exact class and address, any triangle) and error frames.
 * Binding, unbinding and board commands run under RTNL; the receive path
 * and the timer under live->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/if_arp.h>
#include <linux/jiffies.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>

#include "skin.h"

/* Live patches, under RTNL (changed under skin_lives_mutex as well). */
LIST_HEAD(skin_lives);

#define SKIN_ERR_ID	0
#define SKIN_ERR_MASK	(CAN_ERR_MASK | CAN_ERR_FLAG)	/* as net/can/raw.c */

static canid_t skin_data_id(const struct skin_live *live)
{
	return SKIN_DATA_ID(live->cfg.cls, live->cfg.address, 0);
}

/*
 * The receive sequence is the core's (skin_asm_rx()); the driver adds the
 * lock, the clock, the timer and the wakeups.
 */
static void skin_can_rx(struct sk_buff *skb, void *data)
{
	const struct can_frame *cf = (const struct can_frame *)skb->data;
	struct skin_live *live = data;
	u64 now = ktime_get_ns();
	unsigned int todo;

	spin_lock(&live->lock);
	todo = skin_asm_rx(&live->assembler, &live->ring, cf,
			   can_is_canfd_skb(skb), now);
	if (todo & SKIN_ASM_ARM)
		mod_timer(&live->timer, jiffies + live->timeout);
	if (todo & SKIN_ASM_WAKE)
		skin_cdev_published(live);
	spin_unlock(&live->lock);
}

void skin_can_timeout(struct timer_list *t)
{
	struct skin_live *live = container_of(t, struct skin_live, timer);

	spin_lock(&live->lock);
	if (skin_asm_timeout(&live->assembler, &live->ring))
		skin_cdev_published(live);
	spin_unlock(&live->lock);
}

/**
 * skin_can_bind() - receive from an interface
 * @live: the live patch, not bound
 * @netdev: a CAN interface in init_net
 *
 * Registers both receive filters or neither (as raw_enable_allfilters()).
 * A failure is counted (SKIN_STAT_BIND_FAILED) and logged: when the
 * interface appears later, nobody but the counter can hear of it.  Under
 * RTNL.
 *
 * Return: 0, or the error of can_rx_register().
 */
int skin_can_bind(struct skin_live *live, struct net_device *netdev)
{
	struct net *net = dev_net(netdev);
	int err;

	ASSERT_RTNL();
	err = can_rx_register(net, netdev, skin_data_id(live), SKIN_DATA_MASK,
			      skin_can_rx, live, "skin", NULL);
	if (err)
		goto fail;
	err = can_rx_register(net, netdev, SKIN_ERR_ID, SKIN_ERR_MASK,
			      skin_can_rx, live, "skin", NULL);
	if (err) {
		can_rx_unregister(net, netdev, skin_data_id(live),
				  SKIN_DATA_MASK, skin_can_rx, live);
		goto fail;
	}
	WRITE_ONCE(live->netdev, netdev);
	dev_info(&live->dev, "bound to %s\n", netdev->name);
	return 0;

fail:
	spin_lock_bh(&live->lock);
	skin_stat_inc(live, SKIN_STAT_BIND_FAILED);
	spin_unlock_bh(&live->lock);
	dev_err(&live->dev, "cannot receive from %s: error %d\n",
		netdev->name, err);
	return err;
}

void skin_can_unbind(struct skin_live *live)
{
	struct net_device *netdev = live->netdev;

	ASSERT_RTNL();
	if (!netdev)
		return;
	can_rx_unregister(dev_net(netdev), netdev, skin_data_id(live),
			  SKIN_DATA_MASK, skin_can_rx, live);
	can_rx_unregister(dev_net(netdev), netdev, SKIN_ERR_ID, SKIN_ERR_MASK,
			  skin_can_rx, live);
	WRITE_ONCE(live->netdev, NULL);
	dev_info(&live->dev, "unbound from %s\n", netdev->name);
	/* Pollers learn that the interface is gone. */
	skin_cdev_wake_all(live, EPOLLERR);
}

/*
 * Every board command goes through here: start-up, the delayed
 * SET_TXMODE(on), stop, the restart when the interface comes up, the
 * ioctls.  A listen-only patch withholds each one and counts it, so its
 * tx_commands and tx_failed stay 0 and its bus never sees a frame of it.
 */
static int skin_can_send(struct skin_live *live, const struct can_frame *cf)
{
	struct net_device *netdev = live->netdev;
	struct sk_buff *skb;
	int err;

	if (live->cfg.listen_only) {
		spin_lock_bh(&live->lock);
		skin_stat_inc(live, SKIN_STAT_TX_WITHHELD);
		spin_unlock_bh(&live->lock);
		return 0;
	}
	skb = skin_can_skb_alloc(netdev->ifindex, cf);
	if (!skb) {
		err = -ENOMEM;
	} else {
		skb->dev = netdev;
		/*
		 * Looped back, so that listeners on the host see the
		 * command: candump, and on vcan the board simulator.
		 */
		err = can_send(skb, 1);		/* consumes skb */
	}

	spin_lock_bh(&live->lock);
	skin_stat_inc(live, err ? SKIN_STAT_TX_FAILED : SKIN_STAT_TX);
	spin_unlock_bh(&live->lock);
	if (err)
		dev_warn_ratelimited(&live->dev,
				     "%s: cannot send command 0x%02x: error %d\n",
				     netdev->name, cf->data[0], err);
	return err;
}

static bool skin_can_ready(const struct skin_live *live)
{
	return live->netdev && (live->netdev->flags & IFF_UP);
}

/**
 * skin_can_start() - configure the board and make it stream
 * @live: the live patch
 *
 * Sends SET_BRD_CFG and SET_TRIANG_CFG now and SET_TXMODE(on) once the
 * board has settled; if the interface is absent or down, all of it when
 * the interface comes up.  A listen-only patch withholds them all
 * (skin_can_send()) but keeps the state, so it reads like any other.
 * Under RTNL.
 *
 * Return: 0 when the commands were sent or withheld, or deferred until the interface
 * is up; else the error of the first command the CAN core refused (the
 * rest, SET_TXMODE(on) included, are not sent; counted in tx_failed).
 */
int skin_can_start(struct skin_live *live)
{
	struct can_frame cmds[SKIN_CMD_MAX];
	unsigned int i, n;
	int err;

	ASSERT_RTNL();
	live->streaming = true;
	if (!skin_can_ready(live))
		return 0;
	n = skin_board_commands(&live->cfg, true, cmds);
	for (i = 0; i < n - 1; i++) {
		err = skin_can_send(live, &cmds[i]);
		if (err)
			return err;
	}
	mod_delayed_work(system_wq, &live->start_work,
			 msecs_to_jiffies(SKIN_BOARD_SETTLE_MS));
	return 0;
}

void skin_can_start_work(struct work_struct *work)
{
	struct skin_live *live = container_of(to_delayed_work(work),
					      struct skin_live, start_work);
	struct can_frame cmds[SKIN_CMD_MAX];
	unsigned int n;

	rtnl_lock();
	/* Stopped, unbound or gone down meanwhile: nothing to do. */
	if (live->streaming && skin_can_ready(live)) {
		n = skin_board_commands(&live->cfg, true, cmds);
		skin_can_send(live, &cmds[n - 1]);
	}
	rtnl_unlock();
}

/**
 * skin_can_stop() - tell the board to stop streaming
 * @live: the live patch
 *
 * Under RTNL.  A pending SET_TXMODE(on) sees live->streaming false and
 * does nothing.
 */
void skin_can_stop(struct skin_live *live)
{
	struct can_frame cmd;

	ASSERT_RTNL();
	live->streaming = false;
	if (skin_can_ready(live)) {
		skin_board_commands(&live->cfg, false, &cmd);
		skin_can_send(live, &cmd);
	}
}

static int skin_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct skin_live *live;

	if (netdev->type != ARPHRD_CAN || !net_eq(dev_net(netdev), &init_net))
		return NOTIFY_DONE;

	list_for_each_entry(live, &skin_lives, node) {
		bool named = !strcmp(netdev->name, live->cfg.ifname);

		switch (event) {
		case NETDEV_REGISTER:
		case NETDEV_CHANGENAME:
			if (live->netdev == netdev && !named)
				skin_can_unbind(live);
			else if (!live->netdev && named)
				/* counted: no veto of a registration, a rename */
				skin_can_bind(live, netdev);
			break;
		case NETDEV_UP:
			/* The board may have been power-cycled meanwhile. */
			if (live->netdev == netdev && live->streaming)
				skin_can_start(live);
			break;
		case NETDEV_UNREGISTER:
			if (live->netdev == netdev)
				skin_can_unbind(live);
			break;
		}
	}
	return NOTIFY_DONE;
}

static struct notifier_block skin_netdev_notifier = {
	.notifier_call = skin_netdev_event,
};

int skin_can_init(void)
{
	return register_netdevice_notifier(&skin_netdev_notifier);
}

void skin_can_exit(void)
{
	unregister_netdevice_notifier(&skin_netdev_notifier);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * gui_start - what skinManagerGui does to skinManager's rpc port, as a
 * program linked against YARP's libYARP_os and nothing of ours
 *
 * The GUI's MainWindow::initGuiStatus() restated (icub-main,
 * src/tools/skinManagerGui; icub-main is no dependency of this project):
 * each command sent as its SkinManagerCommand number alone in a Bottle,
 * each reply checked as the GUI checks it, in the GUI's order.  Where the
 * GUI gives up ("return false": it stays "not connected" and retries),
 * this program prints "fail WHY" and exits 1.  Then what the GUI does
 * while running: "show touch thresholds" (get touch thr, split by the
 * port sizes of get info) and the spin boxes' set-then-get (threshold,
 * max neighbour distance), each printed with the set command's reply.
 *
 * usage: gui_start THRESHOLD NEIGH_DIST_M [RPC_PORT]
 * RPC_PORT: the GUI's skinManRpcPort, whose default is
 * "/skinManager/rpc" (skinManager's "/" + getName("/rpc")).
 * prints one "key value..." line per value read; exit 0 when the GUI
 * would have come up, 1 otherwise.
 */
#include <cstdio>
#include <string>
#include <vector>

#include <yarp/os/Bottle.h>
#include <yarp/os/Network.h>
#include <yarp/os/Port.h>

using yarp::os::Bottle;

/* skinDynLib's SkinManagerCommand, the numbers the GUI sends */
enum {
	calibrate, get_touch_thr, set_binarization, get_binarization,
	set_smooth_filter, get_smooth_filter, set_smooth_factor,
	get_smooth_factor, set_threshold, get_threshold, set_gain, get_gain,
	set_cont_gain, get_cont_gain, is_calibrating, get_info, get_pose,
	set_pose, get_position, set_position, get_confidence,
	get_max_neigh_dist, set_max_neigh_dist,
};

static yarp::os::Port port;

/* the GUI's sendRpcCommand(true, cmd): the number alone, the reply */
static Bottle ask(int cmd)
{
	Bottle b, reply;

	b.addInt32(cmd);
	port.write(b, reply);
	return reply;
}

static int fail(const char *why, const Bottle &reply)
{
	std::printf("fail %s: %s\n", why, reply.toString().c_str());
	return 1;
}

static bool is_number(const Bottle &r)
{
	return !r.isNull() && r.size() != 0 && (r.get(0).isFloat64() || r.get(0).isInt32());
}

int main(int argc, char **argv)
{
	yarp::os::Network yarp;
	std::vector<std::string> names;
	std::vector<int> dims;
	Bottle r;

	if (argc != 3 && argc != 4) {
		std::fprintf(stderr, "usage: gui_start THRESHOLD NEIGH_DIST_M [RPC_PORT]\n");
		return 2;
	}
	/* the GUI's rf.check("skinManRpcPort", Value("/skinManager/rpc")) */
	const char *rpc = argc == 4 ? argv[3] : "/skinManager/rpc";
	if (!port.open("/skinManagerGui/rpc:o") ||
	    !yarp::os::Network::connect(port.getName(), rpc))
		return fail("cannot connect", r);

	/* initGuiStatus(), in its order */
	r = ask(get_binarization);
	std::printf("binarization %s\n", r.toString() == "on" ? "on" : "off");
	r = ask(get_smooth_filter);
	std::printf("smooth_filter %s\n", r.toString() == "on" ? "on" : "off");
	r = ask(get_smooth_factor);
	std::printf("smooth_factor %.17g\n", r.get(0).asFloat64());
	r = ask(get_threshold);
	if (r.isNull() || r.size() == 0 || !r.get(0).isInt32())
		return fail("Error while getting the safety threshold", r);
	std::printf("threshold %d\n", r.get(0).asInt32());
	r = ask(get_gain);
	if (!is_number(r))
		return fail("Error while getting the compensation gain", r);
	std::printf("gain %.17g\n", r.get(0).asFloat64());
	r = ask(get_cont_gain);
	if (!is_number(r))
		return fail("Error while getting the contact compensation gain", r);
	std::printf("contact_gain %.17g\n", r.get(0).asFloat64());
	r = ask(get_max_neigh_dist);
	if (!is_number(r))
		return fail("Error while getting the max neighbor distance", r);
	double neigh = r.get(0).asFloat64();
	std::printf("neigh_dist %.17g\n", neigh);
	r = ask(get_info);
	if (r.isNull() || r.size() != 3)
		return fail("Error while reading the module information", r);
	std::printf("info0 %s\n", r.get(0).toString().c_str());
	std::printf("info1 %s\n", r.get(1).toString().c_str());
	Bottle *ports = r.get(2).asList();
	if (!ports)	/* the GUI would dereference NULL here */
		return fail("get info's third item is no list", r);
	for (size_t i = 0; i < ports->size() / 2; i++) {
		names.push_back(ports->get(i * 2).toString());
		dims.push_back(ports->get(i * 2 + 1).asInt32());
		std::printf("port %s %d\n", names.back().c_str(), dims.back());
	}
	r = ask(is_calibrating);
	std::printf("calibrating %s\n", r.toString() == "yes" ? "yes" : "no");
	std::printf("connected\n");

	/* onThreashold(): get touch thr, split by the ports' sizes */
	r = ask(get_touch_thr);
	size_t index = 0;
	for (size_t j = 0; j < dims.size(); j++) {
		double lo = 1e300, hi = -1e300;

		for (int i = 0; i < dims[j]; i++, index++) {
			if (!r.get(index).isFloat64())
				return fail("touch threshold not a float64", r);
			double v = r.get(index).asFloat64();
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		std::printf("touch %s %d %g %g\n", names[j].c_str(), dims[j], lo, hi);
	}
	std::printf("touch_total %zu of %zu\n", index, r.size());

	/* onSpinThresholdChanged(): set (int), then get */
	Bottle b, setReply;
	b.addInt32(set_threshold);
	b.addInt32(std::stoi(argv[1]));
	port.write(b, setReply);
	r = ask(get_threshold);
	std::printf("set_threshold %s -> %d %s\n", argv[1], r.get(0).asInt32(),
		    setReply.toString().c_str());

	/* onSpinNeighborChanged(): set (float64, metres), then get */
	b.clear();
	setReply.clear();
	b.addInt32(set_max_neigh_dist);
	b.addFloat64(std::stod(argv[2]));
	port.write(b, setReply);
	r = ask(get_max_neigh_dist);
	std::printf("set_neigh_dist %s -> %.17g %s\n", argv[2], r.get(0).asFloat64(),
		    setReply.toString().c_str());
	port.close();
	return 0;
}

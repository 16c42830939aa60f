// SPDX-License-Identifier: GPL-2.0
/*
 * contact_reader - a YARP program reading skinManager's skin_events:o as
 * skinDynLib does, linked against YARP's libYARP_os and nothing of ours
 *
 * Its PortReader is icub-main's skinContactList::read and
 * skinContact::read, restated: each contact must come as a list of 8
 * holding (4 int32) then five (3 float64) then (N int32) then a float64,
 * in that order and with exactly those tags; anything else fails the read
 * as it would fail skinManager's readers.  (icub-main is not a dependency
 * of this project: the layout is docs/ICUB.md section 3's, which names
 * it.)
 *
 * usage: contact_reader SOURCE_PORT N [LOCAL_PORT]
 * reads N messages on LOCAL_PORT (/contact_reader), one line each:
 *   msg SEQ TIME NCONTACTS [id body link skin ntaxels pressure copx copy copz]...
 * (the CoP with %g: "nan" when the contact has no position)
 * exit 0 when N messages were read and parsed, 1 otherwise.
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <yarp/os/Bottle.h>
#include <yarp/os/ConnectionReader.h>
#include <yarp/os/Network.h>
#include <yarp/os/Port.h>
#include <yarp/os/PortReader.h>
#include <yarp/os/Stamp.h>
#include <yarp/os/Time.h>

struct Contact {
	int id, body, link, skin;
	double v[5][3];
	std::vector<int> taxels;
	double pressure;
};

class ContactList : public yarp::os::PortReader {
public:
	std::vector<Contact> contacts;
	bool ok = false;

	bool read(yarp::os::ConnectionReader &c) override
	{
		contacts.clear();
		ok = false;
		c.convertTextMode();
		if (c.expectInt32() != BOTTLE_TAG_LIST)
			return false;
		int n = c.expectInt32();
		for (int i = 0; i < n; i++) {
			Contact k;

			if (c.expectInt32() != BOTTLE_TAG_LIST || c.expectInt32() != 8)
				return false;
			if (c.expectInt32() != BOTTLE_TAG_LIST + BOTTLE_TAG_INT32 ||
			    c.expectInt32() != 4)
				return false;
			k.id = c.expectInt32();
			k.body = c.expectInt32();
			k.link = c.expectInt32();
			k.skin = c.expectInt32();
			for (int j = 0; j < 5; j++) {
				if (c.expectInt32() != BOTTLE_TAG_LIST + BOTTLE_TAG_FLOAT64 ||
				    c.expectInt32() != 3)
					return false;
				for (int m = 0; m < 3; m++)
					k.v[j][m] = c.expectFloat64();
			}
			if (c.expectInt32() != BOTTLE_TAG_LIST + BOTTLE_TAG_INT32)
				return false;
			int nt = c.expectInt32();
			for (int j = 0; j < nt; j++)
				k.taxels.push_back(c.expectInt32());
			if (c.expectInt32() != BOTTLE_TAG_FLOAT64)
				return false;
			k.pressure = c.expectFloat64();
			contacts.push_back(k);
		}
		ok = !c.isError();
		return ok;
	}
};

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		std::fprintf(stderr, "usage: contact_reader SOURCE_PORT N [LOCAL_PORT]\n");
		return 2;
	}
	const char *local = argc == 4 ? argv[3] : "/contact_reader";
	yarp::os::Network yarp;
	yarp::os::Port port;
	ContactList list;
	int want = std::atoi(argv[2]), got = 0;

	if (!port.open(local))
		return 1;
	if (!yarp::os::Network::connect(argv[1], local)) {
		std::fprintf(stderr, "contact_reader: cannot connect %s\n", argv[1]);
		return 1;
	}
	while (got < want) {
		yarp::os::Stamp st;

		if (!port.read(list) || !list.ok) {
			std::printf("bad message\n");
			return 1;
		}
		port.getEnvelope(st);
		std::printf("msg %d %.6f %zu", st.getCount(), st.getTime(), list.contacts.size());
		for (const auto &k : list.contacts)
			std::printf(" [%d %d %d %d %zu %.3f %g %g %g]", k.id, k.body, k.link,
				    k.skin, k.taxels.size(), k.pressure, k.v[0][0], k.v[0][1],
				    k.v[0][2]);
		std::printf("\n");
		std::fflush(stdout);
		got++;
	}
	port.close();
	return 0;
}

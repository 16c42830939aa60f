// SPDX-License-Identifier: GPL-2.0
/*
 * fastsub.cpp - a ROS 2 subscriber on Fast DDS, for the ros2 layer
 *
 * The other DDS implementation ROS 2 ships (rmw_fastrtps, the default
 * RMW), through its own API (Debian's libfastrtps-dev 2.9): readers on
 * the DDS topics and type names a ROS 2 node uses ("rt" + the ROS name,
 * tactile_msgs::msg::dds_::TactileState_), with ROS 2's two profiles.
 * The type is carried as its serialized bytes (the golden-byte tests,
 * test_ros2_wire, check those): only the header's stamp is read, which
 * is what the restart, stop and late-join cases measure.
 *
 * Its interface is ros2sub's (tests/ros2/ros2sub.c), so that the tests
 * run either: per TOPIC a default-profile and a sensor_data-profile
 * reader, every sample one line
 *
 *	PROFILE TOPIC stamp SEC NSEC BYTES
 *
 * "ready" once the readers exist; "matched PROFILE TOPIC N" when the
 * number of matched writers changes.  Stops after SECONDS or on stdin's
 * end.
 *
 * Usage: fastsub [-d DOMAIN] [-t SECONDS] /ns/part/values:state ...
 */
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/subscriber/qos/DataReaderQos.hpp>
#include <fastdds/dds/topic/Topic.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>

using namespace eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::InstanceHandle_t;
using eprosima::fastrtps::rtps::SerializedPayload_t;

namespace {

// The lines, whole, and "ready" first: what the listeners say before it
// (Fast DDS's threads match as soon as a reader exists) waits in
// @pending.  (Holding a lock across create_datareader() deadlocks with
// Fast DDS's own.)
std::mutex out_lock;
bool out_ready;
std::string pending;

void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void emit(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	std::lock_guard<std::mutex> g(out_lock);
	if (!out_ready) {
		pending += line;
		return;
	}
	fputs(line, stdout);
	fflush(stdout);
}

struct Raw {
	std::vector<unsigned char> bytes;
};

// a type known by its name only: what arrives is kept as it came
class RawType : public TopicDataType {
public:
	explicit RawType(const char *name)
	{
		setName(name);
		m_typeSize = 65536;
		m_isGetKeyDefined = false;
		auto_fill_type_object(false);
		auto_fill_type_information(false);
	}
	bool serialize(void *data, SerializedPayload_t *payload) override
	{
		Raw *r = static_cast<Raw *>(data);

		if (r->bytes.size() > payload->max_size)
			return false;
		memcpy(payload->data, r->bytes.data(), r->bytes.size());
		payload->length = static_cast<uint32_t>(r->bytes.size());
		return true;
	}
	bool deserialize(SerializedPayload_t *payload, void *data) override
	{
		Raw *r = static_cast<Raw *>(data);

		r->bytes.assign(payload->data, payload->data + payload->length);
		return true;
	}
	std::function<uint32_t()> getSerializedSizeProvider(void *data) override
	{
		Raw *r = static_cast<Raw *>(data);

		return [r]() { return static_cast<uint32_t>(r->bytes.size()); };
	}
	void *createData() override { return new Raw(); }
	void deleteData(void *data) override { delete static_cast<Raw *>(data); }
	bool getKey(void *, InstanceHandle_t *, bool) override { return false; }
};

const char *const profile_names[2] = { "default", "sensor" };

class Reader : public DataReaderListener {
public:
	Reader(std::string topic, int profile) : topic_(std::move(topic)), profile_(profile) {}

	void on_subscription_matched(DataReader *, const SubscriptionMatchedStatus &s) override
	{
		emit("matched %s %s %d\n", profile_names[profile_], topic_.c_str(),
		     s.current_count);
	}
	void on_data_available(DataReader *r) override
	{
		Raw raw;
		SampleInfo info;

		while (r->take_next_sample(&raw, &info) == ReturnCode_t::RETCODE_OK) {
			int32_t sec;
			uint32_t nsec;

			// XCDR1 little-endian (00 01 00 00), then Header.stamp
			if (!info.valid_data || raw.bytes.size() < 12 || raw.bytes[1] != 1)
				continue;
			memcpy(&sec, &raw.bytes[4], 4);
			memcpy(&nsec, &raw.bytes[8], 4);
			emit("%s %s stamp %d %u %zu\n", profile_names[profile_],
			     topic_.c_str(), sec, nsec, raw.bytes.size());
		}
	}

private:
	std::string topic_;
	int profile_;
};

DataReaderQos reader_qos(Subscriber *sub, int profile)
{
	DataReaderQos q = sub->get_default_datareader_qos();

	// ROS 2's default and sensor_data profiles (rmw/qos_profiles.h)
	q.durability().kind = VOLATILE_DURABILITY_QOS;
	q.history().kind = KEEP_LAST_HISTORY_QOS;
	if (profile) {
		q.reliability().kind = BEST_EFFORT_RELIABILITY_QOS;
		q.history().depth = 5;
	} else {
		q.reliability().kind = RELIABLE_RELIABILITY_QOS;
		q.history().depth = 10;
	}
	return q;
}

} // namespace

int main(int argc, char **argv)
{
	int domain = 0, o;
	double seconds = 30;

	while ((o = getopt(argc, argv, "d:t:")) != -1) {
		switch (o) {
		case 'd': domain = atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		default:
			fprintf(stderr, "usage: fastsub [-d DOMAIN] [-t SECONDS] ROS_TOPIC:state|contacts ...\n");
			return 2;
		}
	}
	DomainParticipantFactory *f = DomainParticipantFactory::get_instance();
	DomainParticipantQos pq = PARTICIPANT_QOS_DEFAULT;

	// UDP only, as between machines: no shared-memory segments left
	// behind in /dev/shm (the bridge, Cyclone, has none to share)
	pq.transport().use_builtin_transports = false;
	pq.transport().user_transports.push_back(
		std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>());
	DomainParticipant *pp = f->create_participant(domain, pq);
	if (!pp) {
		fprintf(stderr, "fastsub: no participant\n");
		return 1;
	}
	Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
	TypeSupport state(new RawType("tactile_msgs::msg::dds_::TactileState_"));
	TypeSupport contacts(new RawType("tactile_msgs::msg::dds_::TactileContacts_"));
	if (!sub || state.register_type(pp) != ReturnCode_t::RETCODE_OK ||
	    contacts.register_type(pp) != ReturnCode_t::RETCODE_OK) {
		fprintf(stderr, "fastsub: no subscriber or types\n");
		return 1;
	}
	std::vector<std::unique_ptr<Reader>> listeners;
	for (; optind < argc; optind++) {
		std::string arg = argv[optind];
		size_t colon = arg.rfind(':');

		if (colon == std::string::npos || arg[0] != '/') {
			fprintf(stderr, "fastsub: %s: expected /ROS/NAME:state|contacts\n", arg.c_str());
			return 2;
		}
		std::string name = arg.substr(0, colon);
		bool is_contacts = arg.substr(colon + 1) == "contacts";
		Topic *t = pp->create_topic("rt" + name, is_contacts ? contacts.get_type_name() :
					    state.get_type_name(), TOPIC_QOS_DEFAULT);
		if (!t) {
			fprintf(stderr, "fastsub: topic %s\n", name.c_str());
			return 1;
		}
		for (int k = 0; k < 2; k++) {
			listeners.emplace_back(new Reader(name, k));
			if (!sub->create_datareader(t, reader_qos(sub, k), listeners.back().get())) {
				fprintf(stderr, "fastsub: reader on %s\n", name.c_str());
				return 1;
			}
		}
	}
	{
		std::lock_guard<std::mutex> g(out_lock);

		fputs("ready\n", stdout);
		fputs(pending.c_str(), stdout);
		fflush(stdout);
		out_ready = true;
	}
	auto t0 = std::chrono::steady_clock::now();
	for (;;) {
		struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
		char buf[64];

		if (poll(&p, 1, 100) > 0 && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;
		if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds)
			break;
	}
	pp->delete_contained_entities();
	f->delete_participant(pp);
	return 0;
}

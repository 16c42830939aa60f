// SPDX-License-Identifier: GPL-2.0
/*
 * analog_client - what skinManager does to each of its input ports, as a
 * program linked against YARP's libYARP_dev and nothing of ours
 *
 * skinManager's Compensator::init() (icub-main, src/modules/skinManager;
 * icub-main is no dependency of this project) restated: it opens YARP's
 * `analogsensorclient` device with local /NAME/input and remote the raw
 * port, which connects the raw port to it over udp and its /rpc:o to the
 * raw port's /rpc:i, and fails to open when either connection cannot be
 * made; then it waits for getChannels() to be non-zero (the first vector
 * in), reads, and at calibration calls calibrateSensor() (analogServer's
 * [iana] [cal], answered with an int).
 *
 * usage: analog_client REMOTE LOCAL
 * prints "channels N", "reads N" (reads of N values in 2 s, one every
 * 20 ms), "calibrate R"; exit 0 when all of it worked as
 * skinManager needs it, 1 otherwise ("fail WHY").
 */
#include <cstdio>
#include <string>

#include <yarp/dev/IAnalogSensor.h>
#include <yarp/dev/PolyDriver.h>
#include <yarp/os/Network.h>
#include <yarp/os/Property.h>
#include <yarp/os/Time.h>
#include <yarp/sig/Vector.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: analog_client REMOTE LOCAL\n");
		return 2;
	}
	yarp::os::Network yarp;
	yarp::os::Property options;
	options.put("robot", "icub");
	options.put("local", argv[2]);
	options.put("remote", argv[1]);
	options.put("device", "analogsensorclient");

	yarp::dev::PolyDriver driver(options);
	yarp::dev::IAnalogSensor *sensor = nullptr;
	if (!driver.isValid() || !driver.view(sensor) || !sensor) {
		printf("fail could not open analogsensorclient on %s\n", argv[1]);
		return 1;
	}
	/* Compensator::init: 50 tries 100 ms apart */
	int channels = 0;
	for (int i = 0; i < 50 && !(channels = sensor->getChannels()); i++)
		yarp::os::Time::delay(0.1);
	printf("channels %d\n", channels);
	if (!channels) {
		printf("fail no vector within 5 s\n");
		return 1;
	}
	/* Compensator::readRawAndWriteCompensatedData, every 20 ms */
	yarp::sig::Vector v;
	int reads = 0;
	double end = yarp::os::Time::now() + 2;
	while (yarp::os::Time::now() < end) {
		if (sensor->read(v) == yarp::dev::IAnalogSensor::AS_OK &&
		    (int)v.size() == channels)
			reads++;
		yarp::os::Time::delay(0.02);
	}
	printf("reads %d\n", reads);
	if (!reads) {
		printf("fail no read of %d values\n", channels);
		return 1;
	}
	int r = sensor->calibrateSensor();
	printf("calibrate %d\n", r);
	if (r != yarp::dev::IAnalogSensor::AS_OK) {
		printf("fail calibrateSensor: %d\n", r);
		return 1;
	}
	driver.close();
	return 0;
}

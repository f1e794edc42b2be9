// Issue 19: the multi-device bookkeeping, without a GPU: copy routes from
// the peer matrix, the device-count check, which device owns an address,
// and the launch check that refuses an operand a device cannot read.
#include "runtime/Devices.h"

#include <gtest/gtest.h>

using namespace kina::runtime;

namespace {

Topology twoDevices(bool peer01, bool peer10) {
  Topology t;
  t.count = 2;
  t.peer = {{false, peer01}, {peer10, false}};
  return t;
}

} // namespace

TEST(Devices, CopyRouteFollowsPeerAccess) {
  EXPECT_EQ(copyRoute(twoDevices(true, true), 0, 1), CopyRoute::Peer);
  EXPECT_EQ(copyRoute(twoDevices(false, false), 0, 1), CopyRoute::Staged);
  // Either direction of access is enough for cuMemcpyPeer to go directly.
  EXPECT_EQ(copyRoute(twoDevices(false, true), 0, 1), CopyRoute::Peer);
  EXPECT_EQ(copyRoute(twoDevices(false, false), 1, 1), CopyRoute::SameDevice);
  // A device the topology does not have has no peer access.
  EXPECT_EQ(copyRoute(twoDevices(true, true), 0, 2), CopyRoute::Staged);
  EXPECT_STREQ(copyRouteName(CopyRoute::Staged), "staged through the host");
}

TEST(Devices, MissingDevicesNamesTheHighestAndTheCount) {
  EXPECT_EQ(missingDevices({0, 1}, 2), "");
  EXPECT_EQ(missingDevices({0, 1}, 1), "needs devices 0 to 1 (2), this machine has 1");
  EXPECT_EQ(missingDevices({3}, 0), "needs devices 0 to 3 (4), this machine has 0");
  EXPECT_EQ(missingDevices({}, 0), "");
}

TEST(Devices, LedgerKnowsWhichDeviceOwnsAnAddress) {
  DeviceLedger l;
  l.add(0x1000, 0x100, 0, "x on device 0");
  l.add(0x2000, 0x80, 1, "x on device 1");
  EXPECT_EQ(l.owner(0x1000), 0);
  EXPECT_EQ(l.owner(0x10ff), 0);
  EXPECT_EQ(l.owner(0x1100), std::nullopt); // one past the end
  EXPECT_EQ(l.owner(0x2040), 1);
  EXPECT_EQ(l.owner(0x0fff), std::nullopt);
  EXPECT_EQ(l.bytesOn(0), 0x100u);
  EXPECT_EQ(l.bytesOn(1), 0x80u);
  EXPECT_TRUE(l.remove(0x2000));
  EXPECT_FALSE(l.remove(0x2000));
  EXPECT_EQ(l.owner(0x2040), std::nullopt);
  EXPECT_EQ(l.allocations(), 1u);
}

TEST(Devices, LaunchRefusesAnOperandTheDeviceCannotRead) {
  DeviceLedger l;
  l.add(0x1000, 0x100, 0, "%5");
  l.add(0x2000, 0x100, 1, "%7");
  EXPECT_EQ(l.checkLaunch(0, {0x1000}, twoDevices(false, false)), "");
  EXPECT_EQ(l.checkLaunch(0, {0x1000, 0x2000}, twoDevices(false, false)),
            "operand 2 (%7) is on device 1, which device 0 cannot read (no peer access): copy it "
            "first");
  EXPECT_EQ(l.checkLaunch(0, {0x1000, 0x2000}, twoDevices(true, false)), "");
  EXPECT_EQ(l.checkLaunch(0, {0x9000}, twoDevices(true, true)),
            "operand 1 is not a device allocation Kina made");
}

#include "Geometries/RoadGeometry.h"

namespace odr
{

RoadGeometry::RoadGeometry(double s0, double x0, double y0, double hdg0, double length) : s0(s0), x0(x0), y0(y0), hdg0(hdg0), length(length) {}

} // namespace odr

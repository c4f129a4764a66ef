// odr_points: evaluates an OpenDRIVE map with libOpenDRIVE, for scil's map tests.
//
//   odr_points MAP.xodr info            proj4 string, then `road,length,geometries` per road
//   odr_points MAP.xodr ref STEP        `road,s,x,y,hdg` along every reference line
//   odr_points MAP.xodr match PTS.csv   for each `x,y` line: `x,y,road,s,distance` to the
//                                       nearest reference line (libOpenDRIVE's evaluation;
//                                       coarse scan then golden-section refinement)
#include "OpenDriveMap.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

static double dist_at(const odr::RefLine& rl, double s, double x, double y)
{
    const odr::Vec3D p = rl.get_xyz(s);
    return std::hypot(p[0] - x, p[1] - y);
}

// Nearest s on one reference line: scan every 0.25 m, then refine around the best sample.
static double nearest_s(const odr::RefLine& rl, double x, double y)
{
    const double len = rl.length;
    const int    n = std::max(1, static_cast<int>(std::ceil(len / 0.25)));
    double       best_s = 0.0, best_d = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= n; i++)
    {
        const double s = len * i / n;
        const double d = dist_at(rl, s, x, y);
        if (d < best_d)
        {
            best_d = d;
            best_s = s;
        }
    }
    double       a = std::max(0.0, best_s - len / n), b = std::min(len, best_s + len / n);
    const double g = (std::sqrt(5.0) - 1.0) / 2.0;
    while (b - a > 1e-9)
    {
        const double c = b - g * (b - a), d = a + g * (b - a);
        if (dist_at(rl, c, x, y) < dist_at(rl, d, x, y))
            b = d;
        else
            a = c;
    }
    return 0.5 * (a + b);
}

int main(int argc, char** argv)
{
    if (argc < 3)
    {
        std::cerr << "usage: odr_points MAP.xodr info | ref STEP | match POINTS.csv\n";
        return 2;
    }
    const odr::OpenDriveMap map(argv[1], false);
    const std::string       cmd = argv[2];
    if (cmd == "info")
    {
        std::printf("proj4,%s\n", map.proj4.c_str());
        for (const auto& [id, road] : map.id_to_road)
            std::printf("%s,%.9f,%zu\n", id.c_str(), road.length, road.ref_line.s0_to_geometry.size());
        return 0;
    }
    if (cmd == "ref" && argc == 4)
    {
        const double step = std::stod(argv[3]);
        std::printf("road,s,x,y,hdg\n");
        for (const auto& [id, road] : map.id_to_road)
        {
            const odr::RefLine& rl = road.ref_line;
            const int           n = std::max(1, static_cast<int>(std::ceil(rl.length / step)));
            for (int i = 0; i <= n; i++)
            {
                const double     s = std::min(rl.length, i * step);
                const odr::Vec3D p = rl.get_xyz(s);
                const odr::Vec3D d = rl.derivative(s);
                std::printf("%s,%.9f,%.9f,%.9f,%.12f\n", id.c_str(), s, p[0], p[1], std::atan2(d[1], d[0]));
            }
        }
        return 0;
    }
    if (cmd == "match" && argc == 4)
    {
        std::ifstream in(argv[3]);
        std::string   line;
        std::printf("x,y,road,s,distance\n");
        while (std::getline(in, line))
        {
            std::istringstream ls(line);
            double             x, y;
            char               comma;
            if (!(ls >> x >> comma >> y))
                continue; // header or blank
            std::string best_id;
            double      best_s = 0.0, best_d = std::numeric_limits<double>::infinity();
            for (const auto& [id, road] : map.id_to_road)
            {
                const double s = nearest_s(road.ref_line, x, y);
                const double d = dist_at(road.ref_line, s, x, y);
                if (d < best_d)
                {
                    best_d = d;
                    best_s = s;
                    best_id = id;
                }
            }
            std::printf("%.9f,%.9f,%s,%.9f,%.9f\n", x, y, best_id.c_str(), best_s, best_d);
        }
        return 0;
    }
    std::cerr << "unknown command " << cmd << "\n";
    return 2;
}

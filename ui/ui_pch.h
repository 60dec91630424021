// The window library's precompiled header (ui/CMakeLists.txt): Qt Widgets, QCustomPlot
// and the standard headers that nearly every file here parses. Parsing them was most of a
// file's compile time. Each file still includes what it uses.
#pragma once

#include <QtWidgets>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

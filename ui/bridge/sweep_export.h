#pragma once
// The sweep files the Capacity view saves and reopens: the JSON `llm-workbench bench
// --sweep --json` writes (engine/bench/sweep.h), so a sweep run on the command line, on
// the simulator or against a remote server opens beside one run in the window.
#include <QString>

#include "engine/bench/sweep.h"

namespace lwb::ui {

// Each returns an empty string on success, else a readable error naming the file.
QString saveSweepJson(const Sweep& sweep, const QString& path);
QString openSweepJson(const QString& path, Sweep* sweep);
// Whether `path` holds a sweep rather than a run (File ▸ Open run… opens both).
bool isSweepFile(const QString& path);

}  // namespace lwb::ui

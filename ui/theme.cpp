#include "ui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>
#include <cmath>

namespace lwb::ui::theme {

namespace {
uint64_t mix(uint64_t x) {  // splitmix64 finaliser: neighbouring ids get unrelated hues
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

QColor requestColor(int64_t id) {
  const uint64_t h = mix(static_cast<uint64_t>(id));
  const double hue = std::fmod(0.61803398875 * double(h % 1000003), 1.0);
  const int sat = 110 + int((h >> 20) % 60);
  const int val = 190 + int((h >> 28) % 50);
  return QColor::fromHsv(int(hue * 359), sat, val);
}

QColor tokenColor(int id) {
  const uint64_t h = mix(static_cast<uint64_t>(id) * 7919u);
  return QColor::fromHsv(int(h % 360), 70, 95);
}

QString htmlColor(const QColor& c) { return c.name(QColor::HexRgb); }

void apply(QApplication& app) {
  app.setStyle(QStyleFactory::create("Fusion"));
  QPalette p;
  p.setColor(QPalette::Window, kWindow);
  p.setColor(QPalette::WindowText, kText);
  p.setColor(QPalette::Base, kBase);
  p.setColor(QPalette::AlternateBase, kPanel);
  p.setColor(QPalette::ToolTipBase, kPanel);
  p.setColor(QPalette::ToolTipText, kText);
  p.setColor(QPalette::Text, kText);
  p.setColor(QPalette::Button, kPanel);
  p.setColor(QPalette::ButtonText, kText);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Highlight, kAccent.darker(140));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, kAccent);
  p.setColor(QPalette::PlaceholderText, kMutedText);
  p.setColor(QPalette::Disabled, QPalette::Text, kMutedText);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, kMutedText);
  p.setColor(QPalette::Disabled, QPalette::WindowText, kMutedText);
  app.setPalette(p);
  app.setStyleSheet(QStringLiteral(
      "QDockWidget { color: %1; font-weight: 600; }"
      "QDockWidget::title { background: %2; padding: 4px 8px; }"
      "QGroupBox { border: 1px solid %3; border-radius: 4px; margin-top: 10px; padding-top: 6px; }"
      "QGroupBox::title { subcontrol-origin: margin; left: 8px; color: %4; }"
      "QToolTip { color: %1; background: %2; border: 1px solid %3; padding: 4px; }"
      "QStatusBar QLabel { padding: 0 6px; }")
      .arg(htmlColor(kText), htmlColor(kPanel), htmlColor(kGrid), htmlColor(kMutedText)));
}

}  // namespace lwb::ui::theme

#pragma once
// The window's language: English (the source texts) or Japanese (ui/translations/
// llm-workbench_ja.ts, built to a .qm embedded under :/i18n). The choice is "system"
// (QLocale::system(): Japanese when its language is Japanese), "en" or "ja"; View ▸
// Language saves it in QSettings and it applies at the next start (the command line's
// --lang wins for one run). Texts marked below the window with LWB_TRANSLATE_NOOP (knob
// help, lesson findings) are shown through translated(context, text).
#include <QString>
#include <QStringList>
#include <string_view>

class QObject;
class QTranslator;

namespace lwb::ui {

// "system", "en", "ja": what View ▸ Language and --lang take.
QStringList languageChoices();
// The saved choice ("system" when none or unknown).
QString savedLanguage();
void saveLanguage(const QString& choice);
// "en" or "ja" for a choice: "system" follows QLocale::system(). Throws lwb::Error naming
// the value and the choices for anything else.
QString resolveLanguage(const QString& choice);
// Installs the translators for `lang` ("en": none; "ja": the window's and, when Qt's
// translations are installed, qtbase_ja for the standard dialogs) on the application,
// replacing earlier ones. Needs a QCoreApplication. False when the window's .qm for a
// language other than English is missing (the window then stays in English).
bool installLanguage(const QString& lang);
// The language installed by installLanguage ("en" before any).
QString currentLanguage();
// The window's translator for `lang`, loaded but not installed (nullptr when none): the
// tests wrap it to record lookups that have no translation.
QTranslator* loadWindowTranslator(const QString& lang, QObject* parent);
// A text marked with LWB_TRANSLATE_NOOP(context, text), translated for the window.
QString translated(const char* context, std::string_view text);

}  // namespace lwb::ui

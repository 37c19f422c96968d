/** The language in use (saved choice, else the browser's) and t(), through React context. */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { CATALOGUES, type Language, type StringKey } from './strings';

const STORAGE_KEY = 'mohar.language';

export type Translate = (key: StringKey, params?: Record<string, string | number>) => string;

interface I18n {
  language: Language;
  setLanguage(language: Language): void;
  t: Translate;
}

export function browserLanguage(): Language {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'hi') return saved;
  } catch {
    // storage blocked (private mode, sandboxed frame): fall back to the browser's languages
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'hi') return 'hi';
    if (primary === 'en') return 'en';
  }
  return 'en';
}

/** Remembers the choice for the next visit (the signing page and the console share it). */
export function saveLanguage(language: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not saved; the choice still holds for this page
  }
}

export function translator(language: Language): Translate {
  const catalogue = CATALOGUES[language];
  return (key, params) =>
    catalogue[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      params && name in params ? String(params[name]) : whole,
    );
}

const I18nContext = createContext<I18n>({ language: 'en', setLanguage: () => undefined, t: translator('en') });

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(browserLanguage);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  const value = useMemo<I18n>(
    () => ({
      language,
      t: translator(language),
      setLanguage(next) {
        setLanguageState(next);
        saveLanguage(next);
      },
    }),
    [language],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}

/** Entry of the office console (/app). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ConsoleI18nProvider } from './i18n';
import { RouterProvider } from './router';
import { SessionProvider } from './session';
import '../styles.css';
import './console.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConsoleI18nProvider>
      <RouterProvider>
        <SessionProvider>
          <App />
        </SessionProvider>
      </RouterProvider>
    </ConsoleI18nProvider>
  </StrictMode>,
);

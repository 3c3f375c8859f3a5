import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { apiSource } from './data/api.js';
import { SourceContext } from './data/context.js';
import { readInlineReport, staticSource } from './data/static.js';
import './styles.css';

const inline = readInlineReport(document);
const source = inline ? staticSource(inline) : apiSource();
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <SourceContext.Provider value={source}>
        <App />
      </SourceContext.Provider>
    </StrictMode>,
  );
}

// The site's own script (external: the strict CSP allows no inline script). It registers the
// service worker that keeps the site readable offline, and gives each code snippet a Copy
// button. Nothing here touches the <kv-calc> elements: they work without this file.

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').catch((error) => {
    // Offline reading is a convenience; the pages work without it.
    console.warn(`kvcalc site: the service worker did not register (${error.message})`);
  });
}

function addCopyButtons() {
  if (!navigator.clipboard || !window.isSecureContext) return;
  for (const box of document.querySelectorAll('.snippet')) {
    const code = box.querySelector('pre code');
    if (!code || box.querySelector('.copy-button')) continue;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy-button';
    const label = box.querySelector('.snippet-label');
    const what = label ? label.textContent : 'snippet';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', `Copy: ${what}`);
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy';
      }
      setTimeout(() => { button.textContent = 'Copy'; }, 2000);
    });
    box.append(button);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', addCopyButtons);
else addCopyButtons();

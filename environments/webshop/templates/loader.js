(() => {
  let pending = Promise.resolve();
  window.__agentgymLoads = 0;
  const show = (html) => {
    const d = new DOMParser().parseFromString(html, 'text/html');
    document.title = d.title;
    document.body.replaceWith(d.body);
    window.scrollTo(0, 0);
  };
  // The env's browser context answers a load through its binding (one round trip to the
  // shop, no request through the network stack); any other browser fetches the same URL.
  const get = (url) => typeof window.__agentgymFetch === 'function'
    ? window.__agentgymFetch(url)
    : fetch(url, {credentials: 'same-origin', cache: 'no-store'}).then((r) => r.text());
  const load = (url) => {
    window.__agentgymLoads += 1;
    pending = pending
      .then(() => get(url))
      .then(show)
      .catch(() => { location.assign(url); });
    return pending;
  };
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey ||
        e.altKey) return;
    const a = e.target.closest ? e.target.closest('a[href]') : null;
    if (!a || a.origin !== location.origin || a.target) return;
    e.preventDefault();
    load(a.href);
  });
  document.addEventListener('submit', (e) => {
    const f = e.target;
    if ((f.getAttribute('method') || 'get').toLowerCase() !== 'get') return;
    const u = new URL(f.getAttribute('action') || location.href, location.href);
    if (u.origin !== location.origin) return;
    e.preventDefault();
    u.search = new URLSearchParams(new FormData(f)).toString();
    load(u.href);
  });
  window.__agentgymSettle = () => pending;
  window.__agentgymLoad = load;
})();
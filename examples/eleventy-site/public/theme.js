// The site's dark mode, as many Eleventy starters do it: a `dark` class on <body>, kept
// across pages in localStorage. The element follows the class.
const apply = (dark) => document.body.classList.toggle('dark', dark);
apply(localStorage.getItem('theme') === 'dark');
document.getElementById('theme-toggle').addEventListener('click', () => {
  const dark = !document.body.classList.contains('dark');
  localStorage.setItem('theme', dark ? 'dark' : 'light');
  apply(dark);
});

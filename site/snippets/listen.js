// page.js, loaded with <script type="module" src="page.js"></script>
document.addEventListener('kvcalc-change', (event) => {
  const { result } = event;
  console.log(`${result.model}: ${result.bytesPerToken} B per token, ${result.kvBytes} B in all`);
});

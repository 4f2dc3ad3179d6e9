document.addEventListener('click', function (e) {
  var b = e.target.closest('button[data-all]');
  if (!b) return;
  var open = b.getAttribute('data-all') === 'open';
  document.querySelectorAll('details').forEach(function (d) { d.open = open; });
});

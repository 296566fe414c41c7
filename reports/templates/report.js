(function () {
  var failuresOnly = document.getElementById('failures-only');
  var level = document.getElementById('level-filter');
  var levels = JSON.parse(document.body.getAttribute('data-levels'));
  function apply() {
    var maxRank = levels.indexOf(level.value);
    document.querySelectorAll('[data-level]').forEach(function (el) {
      var rank = levels.indexOf(el.getAttribute('data-level'));
      var hide = (rank > maxRank) || (failuresOnly.checked && el.getAttribute('data-failing') !== '1');
      el.classList.toggle('hidden', hide);
    });
    document.querySelectorAll('tr.area').forEach(function (row) {
      var next = row.nextElementSibling, visible = false;
      while (next && !next.classList.contains('area')) {
        if (!next.classList.contains('hidden')) { visible = true; }
        next = next.nextElementSibling;
      }
      row.classList.toggle('hidden', !visible);
    });
  }
  failuresOnly.addEventListener('change', apply);
  level.addEventListener('change', apply);
  apply();
})();

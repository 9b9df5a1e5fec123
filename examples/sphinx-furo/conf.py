# Sphinx with the furo theme, and <kv-calc>: the package's files under _static/kvcalc (a
# copy of node_modules/kvcalc/dist), loaded as a module, and the figures baked into the
# built pages when the build finishes.
import subprocess

project = "kvcalc in Sphinx"
html_theme = "furo"
html_favicon = "favicon.svg"
html_static_path = ["_static"]
html_js_files = [("kvcalc/kvcalc.js", {"type": "module"})]


def bake(app, exception):
    if exception is None and app.builder.format == "html":
        subprocess.run(["npx", "--no-install", "kvcalc", "bake", str(app.outdir)], cwd=app.confdir, check=True)


def setup(app):
    app.connect("build-finished", bake)

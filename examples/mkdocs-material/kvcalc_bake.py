# MkDocs hook: bakes the calculator's figures into the built site (npx kvcalc bake).
import os
import subprocess


def on_post_build(config, **kwargs):
    project = os.path.dirname(config["config_file_path"])
    subprocess.run(["npx", "--no-install", "kvcalc", "bake", config["site_dir"]], cwd=project, check=True)

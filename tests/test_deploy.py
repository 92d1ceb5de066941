"""deploy/: the Kubernetes manifests validate against the Kubernetes schemas (offline: the
kubernetes-validate package carries them), the kustomization renders, and what the manifests
and the container file ask of graphmem exists (the serve options, the probes, the model)."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from graphmem.adapters import stores_server
from graphmem.cli.app import cli
from graphmem.config import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parent.parent
KUBE = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(p for p in KUBE.glob("*.yaml") if p.name != "kustomization.yaml")
VERSION = kubernetes_validate.latest_version()


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def _statefulset() -> dict[str, Any]:
    return _documents(KUBE / "statefulset.yaml")[0]


def test_there_are_manifests() -> None:
    kinds = {d["kind"] for p in MANIFESTS for d in _documents(p)}
    assert {"StatefulSet", "Service", "Ingress", "Secret", "PersistentVolumeClaim"} <= kinds


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_validates_against_the_kubernetes_schemas(path: Path) -> None:
    for document in _documents(path):
        kubernetes_validate.validate(document, VERSION, strict=True)


def test_the_validator_catches_a_mistake() -> None:
    broken = copy.deepcopy(_statefulset())
    probe = broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["httpGet"]["prot"] = probe["httpGet"].pop("port")  # a typo
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSION, strict=True)


def test_the_kustomization_lists_the_manifests_and_renders() -> None:
    listed = set(yaml.safe_load((KUBE / "kustomization.yaml").read_text())["resources"])
    # The controller's ConfigMap is merged by hand into the operator's own.
    assert listed == {p.name for p in MANIFESTS} - {"ingress-nginx-config.yaml"}
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the kustomization is not rendered")
    rendered = subprocess.run(
        [kubectl, "kustomize", str(KUBE)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    documents = [d for d in yaml.safe_load_all(rendered) if d]
    assert sorted(d["kind"] for d in documents) == sorted(
        d["kind"] for name in listed for d in _documents(KUBE / name)
    )
    for document in documents:
        kubernetes_validate.validate(document, VERSION, strict=True)


def test_the_pods_run_serve_stores_with_options_graphmem_has() -> None:
    container = _statefulset()["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[:3] == ["serve", "--stores", "/stores"]
    serve = cli.commands["serve"]
    # Parsed by the real command (unknown options or bad values raise here).
    with serve.make_context("serve", list(args[1:])) as ctx:
        params = ctx.params
    assert params["create"] and params["stores"] == Path("/stores")
    assert stores_server.parse_size(params["memory_budget"]) < _bytes(
        container["resources"]["limits"]["memory"]
    )
    port = int(params["tcp"].rsplit(":", 1)[1])
    assert container["ports"][0]["containerPort"] == port
    # The probes are the two endpoints that need no token.
    assert container["readinessProbe"]["httpGet"]["path"] == stores_server.PROBES[1]
    assert container["livenessProbe"]["httpGet"]["path"] == stores_server.PROBES[0]
    env = {e["name"]: e for e in container["env"]}
    assert env["GRAPHMEM_SERVE_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "graphmem-token"
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert {"/stores", "/tmp"} <= mounts


def test_the_shipped_secret_placeholder_is_refused_by_the_server() -> None:
    from graphmem import GraphMemError, paths

    token = _documents(KUBE / "secret.yaml")[0]["stringData"]["token"]
    with pytest.raises(GraphMemError, match="too weak"):
        paths.check_strength(token, "the Secret")


def test_the_ingress_hashes_on_the_store_name_as_the_tested_nginx_config_does() -> None:
    ingress = _documents(KUBE / "ingress.yaml")[0]
    variable = ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"]
    snippet = _documents(KUBE / "ingress-nginx-config.yaml")[0]["data"]["http-snippet"]
    tested = (ROOT / "deploy" / "nginx" / "graphmem.conf").read_text(encoding="utf-8")
    assert f"map $uri {variable}" in snippet and f"hash {variable} consistent" in tested
    pattern = re.compile(r"~\^/s/\(\?<name>\[\^/\]\+\)\s+\$name;")
    assert pattern.search(snippet) and pattern.search(tested)


def test_the_container_file_builds_from_what_the_repository_has() -> None:
    text = (ROOT / "deploy" / "Containerfile").read_text(encoding="utf-8")
    for source in re.findall(r"^COPY (?!--from)(\S+)", text, flags=re.M):
        for name in source.split():
            assert (ROOT / name).exists(), f"COPY {name}: not in the repository"
    assert 'ENTRYPOINT ["graphmem"]' in text
    # The model it fetches is the one fastembed loads for graphmem's default model.
    from fastembed import TextEmbedding

    (described,) = [m for m in TextEmbedding._list_supported_models() if m.model == DEFAULT_MODEL]
    assert f"snapshot_download('{described.sources.hf}'" in text
    assert "GRAPHMEM_MODEL_PATH=/opt/graphmem/model" in text
    assert "local_dir='/opt/graphmem/model'" in text


def _bytes(quantity: str) -> int:
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    for suffix, scale in units.items():
        if quantity.endswith(suffix):
            return int(float(quantity[: -len(suffix)]) * scale)
    return int(quantity)

"""A scenario's world on disk: real SKILL.md directories and tool modules.

Steps describe skills in words; :class:`World` turns those words into files in a fresh temporary
directory and, for tools named without a module, into a generated Python module of its own, in
:attr:`World.modules_dir`, which reaches the implementation as ``Setup.python_path``. Nothing of
one scenario's world is visible to another: each world has its own directory, no global import
path names it, and its modules are dropped from ``sys.modules`` when it is torn down.

A skill is described by a :class:`SkillDraft`, which alone knows how the skill is written and what
an implementation needs to load it: a new feature of SKILL.md is added there. The test MCP servers
the skills declare are processes, apart: :mod:`skill_conformance.runtime.servers`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from skill_conformance.port import Ability, McpChild, Setup, ToolsChild
from skill_conformance.runtime.servers import Servers, free_port
from skill_conformance.runtime.tripwire import blocked_pipe, running_in

__all__ = ["DUMPER", "GIVE_UP_AFTER", "STUCK_AFTER", "SkillDraft", "World"]

GIVE_UP_AFTER = 0.1
"""The bound (:attr:`Setup.give_up_after`) of a world holding a tool module or MCP server that never
finishes: production defaults (the reference's 5 s import, 10 s handshake) would only be waited
out. Short, because nothing else in such a world has to finish within it: its healthy skills'
tools come from modules already imported (``json``), never from a server or a new module."""

STUCK_AFTER = 2.0
"""Seconds a call may wait on one of the world's hostile fixtures (a named pipe, a tool module that
never finishes importing) before the suite, seeing it wait there (:meth:`World.stuck_on`), ends it
as hung: an implementation that abandons such a wait to a thread of its own has returned by then,
and one that waits in its own call would wait for ever."""

DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""The emitter of the frontmatters: libyaml's where PyYAML was built with it, which writes the text
PyYAML's own writes (tests/runtime/test_world.py), faster."""


@dataclass
class SkillDraft:
    """A skill as the steps have described it so far."""

    name: str
    instructions: str = ""
    description: str = ""
    tools: list[str] = field(default_factory=list)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    allowed_tools: list[str] | str | None = None
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    sparse: dict[str, int] = field(default_factory=dict)
    pipes: list[str] = field(default_factory=list)

    def frontmatter(self) -> dict[str, Any]:
        """The YAML frontmatter of this skill's SKILL.md."""
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description or f"Skill {self.name}.",
        }
        if isinstance(self.allowed_tools, str):
            data["allowed-tools"] = self.allowed_tools
        elif self.allowed_tools is not None:
            data["allowed-tools"] = list(self.allowed_tools)
        if self.tools:
            data["tools"] = [{"type": "python", "import_path": path} for path in self.tools]
        if self.mcp_servers:
            data["mcp-servers"] = self.mcp_servers
        return data

    def body(self) -> str:
        """The instructions: the SKILL.md text after the frontmatter."""
        return self.instructions or f"Instructions of {self.name}."

    def render(self) -> str:
        """The whole SKILL.md text."""
        header = yaml.dump(self.frontmatter(), Dumper=DUMPER, sort_keys=False, allow_unicode=True)
        return f"---\n{header}---\n{self.body()}\n"

    def write(self, directory: Path) -> list[Path]:
        """Write the skill into ``directory`` (created); the named pipes it made, to release."""
        directory.mkdir(exist_ok=True)
        (directory / "SKILL.md").write_text(self.render())
        for relative, content in self.files.items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        for relative, size in self.sparse.items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as handle:
                handle.truncate(size)
        made = []
        for relative in self.pipes:
            pipe = directory / relative
            pipe.parent.mkdir(parents=True, exist_ok=True)
            if not pipe.exists():
                os.mkfifo(pipe)
                made.append(pipe)
        for relative, link_target in self.links.items():
            link = directory / relative
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.is_symlink():
                link.symlink_to(link_target)
        return made

    def needs(self) -> dict[Ability, str]:
        """The abilities an implementation needs to load the skill as written, each with why."""
        needs: dict[Ability, str] = {}
        if self.tools:
            needs.setdefault(Ability.PYTHON_TOOLS, f"skill {self.name!r} declares Python tools")
        if self.allowed_tools is not None:
            needs.setdefault(Ability.ALLOWED_TOOLS, f"skill {self.name!r} declares allowed-tools")
        for server, entry in self.mcp_servers.items():
            ability = Ability.MCP_HTTP if "url" in entry else Ability.MCP
            needs.setdefault(ability, f"skill {self.name!r} declares the MCP server {server!r}")
        if self.links:
            needs.setdefault(Ability.SYMLINKS, f"skill {self.name!r} holds a symbolic link")
        return needs


class World:
    """The files one scenario's skill system is opened on.

    Args:
        root: An empty directory owned by this world.
        zygote: The address of a zygote (:mod:`skill_conformance.testing.zygote`) that the test
            MCP servers' commands ask to fork them, or ``None``: each server imports ``mcp``.

    """

    def __init__(self, root: Path, zygote: str | None = None) -> None:
        self.root = root
        self.skills_dir = root / "skills"
        self.modules_dir = root / "modules"
        self.scratch = root / "scratch"
        self.mcp_log = root / "mcp.log"
        self.servers = Servers(self.mcp_log, zygote)
        """The test MCP servers: the commands the skills declare, and those the world runs."""
        self.skills: dict[str, SkillDraft] = {}
        self._module_names: list[str] = []
        self._written: set[str] = set()
        self._pipes: list[Path] = []
        self._give_up_after: float | None = None
        self._hanging_imports = False
        self._hanging_modules: dict[str, str] = {}
        """The source file of each tool module that never finishes importing, and its name."""
        self.skills_dir_is_file = False
        """Whether :meth:`write` makes the skills directory a plain file instead."""
        self.skills_dir_linked = False
        """Whether the implementation is given a symbolic link to the skills directory."""
        for directory in (self.skills_dir, self.modules_dir, self.scratch):
            directory.mkdir(parents=True, exist_ok=True)

    def setup(
        self, children: Sequence[ToolsChild | McpChild] = (), *, skills_tools_provider: bool = True
    ) -> Setup:
        """What the implementation is opened on: this world's skills, modules and scratch."""
        return Setup(
            skills_dir=self.skills_path,
            children=tuple(children),
            skills_tools_provider=skills_tools_provider,
            workdir=self.scratch,
            python_path=(self.modules_dir,),
            give_up_after=self._give_up_after,
        )

    @property
    def skills_path(self) -> Path:
        """The skills directory as the implementation is given it: itself, or a link to it."""
        return self.root / "skills-link" if self.skills_dir_linked else self.skills_dir

    # -- describing skills -------------------------------------------------------------------

    def skill(self, name: str) -> SkillDraft:
        """The draft of skill ``name``, created on first mention."""
        return self.skills.setdefault(name, SkillDraft(name))

    def add_python_tool(self, skill: str, tool: str, *, records_import: bool = False) -> str:
        """Declare a Python tool on ``skill`` and return its import path.

        ``tool`` is either an import path (``json:loads``) or a bare function name, for which a
        module of this world's own is generated: its function ``tool`` returns ``"{skill}:{tool}"``.
        With ``records_import`` the generated module leaves a marker file when it is imported.
        """
        if ":" in tool:
            import_path = tool
        else:
            import_path = f"{self._tool_module(skill, records_import)}:{tool}"
            self._append_function(import_path, skill, tool)
        self.skill(skill).tools.append(import_path)
        return import_path

    def add_aliased_python_tool(self, skill: str, alias: str, function: str) -> str:
        """Declare on ``skill`` the tool imported as ``alias``, a function whose own name differs.

        The generated module defines ``function`` and binds it to ``alias`` too; the import path
        names ``alias``.
        """
        module = self._tool_module(skill, records_import=False)
        self._append_function(f"{module}:{function}", skill, function)
        with (self.modules_dir / f"{module}.py").open("a") as handle:
            handle.write(f"\n\n{alias} = {function}\n")
        import_path = f"{module}:{alias}"
        self.skill(skill).tools.append(import_path)
        return import_path

    def add_failing_python_tool(self, skill: str, tool: str, failure: str) -> str:
        """Declare on ``skill`` the tool ``tool`` of a module of its own that fails to import.

        ``failure`` is the name of a ``BaseException`` the module raises (``SystemExit``,
        ``KeyboardInterrupt``...), or ``hang``: the module does not finish importing until this
        world is torn down (then it raises ``ImportError``), so no thread is left spinning.
        """
        name = f"sc_broken_{skill.replace('-', '_')}_{uuid.uuid4().hex[:8]}"
        self._module_names.append(name)
        if failure == "hang":
            self._give_up_after = GIVE_UP_AFTER
            self._hanging_imports = True
            body = (
                "import os, time\n"
                f"_release = {json.dumps(str(self.import_release))}\n"
                f"_scratch = {json.dumps(str(self.scratch))}\n"
                "_deadline = time.monotonic() + 600\n"
                "while os.path.isdir(_scratch) and not os.path.exists(_release):\n"
                "    if time.monotonic() > _deadline:\n"
                "        break\n"
                "    time.sleep(0.05)\n"
                "raise ImportError('released by the conformance suite')\n"
            )
        else:
            body = f"raise {failure}({json.dumps(f'{failure} raised by the tool module')})\n"
        header = '"""A tool module that fails to import, generated by skill-conformance."""\n'
        source = self.modules_dir / f"{name}.py"
        source.write_text(header + body)
        if failure == "hang":
            self._hanging_modules[str(source)] = (
                f"importing the module of `{skill}`'s tool `{tool}`, which never finishes"
            )
        import_path = f"{name}:{tool}"
        self.skill(skill).tools.append(import_path)
        return import_path

    @property
    def import_release(self) -> Path:
        """The file whose creation (at :meth:`teardown`) ends a hanging tool module import."""
        return self.scratch / "release-imports"

    def import_marker(self, skill: str) -> Path:
        """The marker file that the import-recording module of ``skill`` writes."""
        return self.scratch / f"imported-{skill}"

    def add_mcp_server(
        self,
        skill: str,
        server: str,
        tools: list[str],
        *,
        with_command: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        """Declare on ``skill`` the test MCP server ``server`` offering ``tools``.

        ``env`` becomes the entry's ``env``: variables the server process must be given.
        """
        entry: dict[str, Any] = {}
        if with_command:
            command = self.servers.command(server, tools=tools)
            entry = {"command": command.command, "args": list(command.args)}
        if env:
            entry["env"] = dict(env)
        self.skill(skill).mcp_servers[server] = entry

    def add_broken_mcp_server(self, skill: str, server: str, failure: str) -> None:
        """Declare on ``skill`` the MCP server ``server`` that cannot serve.

        ``failure``: ``missing`` (its command does not exist), ``crash`` (it exits at once),
        ``hang`` (it never answers its handshake), ``slow`` (it never answers either, but the
        implementation waits for it as long as its own bound says) or ``unreachable`` (a URL
        where nothing listens). The ``crash``, ``hang`` and ``slow`` servers record their start
        and stop in the log.
        """
        entry: dict[str, Any]
        if failure == "missing":
            entry = {"command": str(self.root / "no-such-mcp-server")}
        elif failure == "unreachable":
            entry = {"url": f"http://127.0.0.1:{free_port()}/mcp"}
        else:
            command = self.servers.command(server)
            mode = "hang" if failure == "slow" else failure
            entry = {"command": command.command, "args": [*command.args, "--mode", mode]}
            if failure == "hang":
                self._give_up_after = GIVE_UP_AFTER
        self.skill(skill).mcp_servers[server] = entry

    def pipe_file(self, skill: str, relative: str) -> None:
        """Give ``skill`` the named pipe (FIFO) ``relative``, which nothing ever writes to."""
        self.skill(skill).pipes.append(relative)

    def sparse_file(self, skill: str, relative: str, size: int) -> None:
        """Give ``skill`` the file ``relative`` of ``size`` bytes, sparse: no block is written."""
        self.skill(skill).sparse[relative] = size

    def replace_by_outside_link(self, skill: str, relative: str, outside: str) -> None:
        """Replace the file ``relative`` of ``skill``, on disk now, by a link to ``outside``."""
        link = self.skills_dir / skill / relative
        link.unlink()
        link.symlink_to(self.root / outside)
        draft = self.skill(skill)
        draft.files.pop(relative, None)
        draft.links[relative] = str(self.root / outside)

    def add_mcp_server_by_url(
        self, skill: str, server: str, url: str, headers: dict[str, str] | None = None
    ) -> None:
        """Declare on ``skill`` the MCP server ``server`` reached at ``url``."""
        entry: dict[str, Any] = {"url": url}
        if headers:
            entry["headers"] = dict(headers)
        self.skill(skill).mcp_servers[server] = entry

    def outside_file(self, name: str, content: str) -> Path:
        """A file next to (outside) the skills directory."""
        path = self.root / name
        path.write_text(content)
        return path

    # -- files written as they are ------------------------------------------------------------
    #
    # The skills directory can also hold what no skill description can say: a SKILL.md given byte
    # for byte, or one that is not a regular file at all. These are written at once, and kept by
    # :meth:`write`.

    def skill_file_bytes(self, folder: str, data: bytes) -> Path:
        """Write ``data`` as ``{folder}/SKILL.md`` (``folder`` relative to the skills directory)."""
        path = self._skill_file(folder)
        path.write_bytes(data)
        return path

    def skill_file_sparse(self, folder: str, size: int) -> Path:
        """Make ``{folder}/SKILL.md`` a file of ``size`` bytes, sparse: no block is written."""
        path = self._skill_file(folder)
        with path.open("wb") as handle:
            handle.truncate(size)
        return path

    def skill_file_folder(self, folder: str) -> Path:
        """Make ``{folder}/SKILL.md`` a directory."""
        path = self._skill_file(folder)
        path.mkdir()
        return path

    def skill_file_pipe(self, folder: str) -> Path:
        """Make ``{folder}/SKILL.md`` a named pipe (FIFO) that nothing ever writes to."""
        path = self._skill_file(folder)
        os.mkfifo(path)
        self._pipes.append(path)
        return path

    def skill_file_link(self, folder: str, target: Path | str) -> Path:
        """Make ``{folder}/SKILL.md`` a symbolic link to ``target``."""
        path = self._skill_file(folder)
        path.symlink_to(target)
        return path

    def linked_skill_folder(self, folder: str, data: bytes, target_name: str | None = None) -> Path:
        """Make ``folder`` a link to an outside folder whose ``SKILL.md`` holds ``data``.

        The folder linked to is named ``target_name``, or ``folder`` as installers name it.
        """
        target = self.root / "linked-skills" / (target_name or folder)
        target.mkdir(parents=True)
        (target / "SKILL.md").write_bytes(data)
        self._written.add(folder)
        link = self.skills_dir / folder
        link.symlink_to(target, target_is_directory=True)
        return link

    def linked_references(self, skill: str, files: dict[str, str]) -> Path:
        """Make the ``references`` folder of ``skill`` a link to an outside folder of ``files``."""
        target = self.root / f"references-of-{skill}"
        target.mkdir()
        for name, content in files.items():
            (target / name).write_text(content)
        self.skill(skill).links["references"] = str(target)
        return target

    def stray_file(self, name: str, content: str = "Not a skill.\n") -> Path:
        """A plain file directly in the skills directory."""
        self._written.add(name)
        path = self.skills_dir / name
        path.write_text(content)
        return path

    def empty_folder(self, name: str) -> Path:
        """A folder without a SKILL.md directly in the skills directory."""
        self._written.add(name)
        path = self.skills_dir / name
        path.mkdir()
        return path

    def _skill_file(self, folder: str) -> Path:
        directory = self.skills_dir / folder
        self._written.add(Path(folder).parts[0])
        directory.mkdir(parents=True, exist_ok=True)
        return directory / "SKILL.md"

    # -- writing -------------------------------------------------------------------------------

    def write(self) -> None:
        """Make the skills directory hold exactly the described skills and the files written."""
        if self.skills_dir_linked and not self.skills_path.is_symlink():
            self.skills_path.symlink_to(self.skills_dir, target_is_directory=True)
        if self.skills_dir_is_file:
            if self.skills_dir.is_dir():
                shutil.rmtree(self.skills_dir)
            self.skills_dir.write_text("A file where the skills directory should be.\n")
            return
        wanted = set(self.skills) | self._written
        for existing in self.skills_dir.iterdir():
            if existing.name not in wanted:
                shutil.rmtree(existing) if existing.is_dir() else existing.unlink()
        for draft in self.skills.values():
            self._pipes += draft.write(self.skills_dir / draft.name)

    def remove_skill(self, name: str) -> None:
        """Forget skill ``name`` and delete its directory."""
        del self.skills[name]
        shutil.rmtree(self.skills_dir / name, ignore_errors=True)

    def stuck_on(self, elapsed: float, thread_id: int) -> str | None:
        """What a call in flight for ``elapsed`` s is seen waiting on, of this world's fixtures.

        Past :data:`STUCK_AFTER`: the thread ``thread_id`` (the one running the call) importing a
        tool module that never finishes, or a thread of this process or of a child waiting to
        read one of the world's named pipes. ``None`` when neither is seen (or not yet).
        """
        if elapsed < STUCK_AFTER or not (self._hanging_modules or self._pipes):
            return None
        importing = running_in(thread_id, self._hanging_modules)
        if importing is not None:
            return importing
        pipes = {pipe: self._pipe_name(pipe) for pipe in self._pipes}
        waiting = blocked_pipe(pipes)
        return f"it waits to read {waiting}, which nothing writes to" if waiting else None

    def _pipe_name(self, pipe: Path) -> str:
        try:
            return f"the named pipe `{pipe.relative_to(self.skills_dir)}`"
        except ValueError:
            return f"the named pipe `{pipe.name}`"

    def release(self) -> None:
        """Let go of what waits on this world's fixtures: pipes give end of file, imports end.

        An implementation that opens a pipe (a ``SKILL.md`` or a reference) for reading waits for a
        writer; opening it for writing (without blocking) and closing it again ends that wait, so
        the blocked thread can finish instead of holding up ``close()`` or the end of the run. A
        tool module that never finishes importing raises ``ImportError`` once released.
        """
        for pipe in self._pipes:
            # ENXIO: no reader is waiting; ENOENT: the pipe is gone.
            with contextlib.suppress(OSError):
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        if self._hanging_imports and self.scratch.is_dir():
            self.import_release.write_text("released")

    def teardown(self) -> None:
        """Stop the world's own servers, end hanging imports; forget its modules."""
        self.release()
        self.servers.stop()
        for module in self._module_names:
            sys.modules.pop(module, None)

    # -- generated tool modules ----------------------------------------------------------------

    def _tool_module(self, skill: str, records_import: bool) -> str:
        slug = skill.replace("-", "_")
        kind = "probe" if records_import else "tools"
        pattern = re.compile(rf"sc_{kind}_{re.escape(slug)}_[0-9a-f]{{8}}")
        existing = [m for m in self._module_names if pattern.fullmatch(m)]
        if existing:
            return existing[0]
        name = f"sc_{kind}_{slug}_{uuid.uuid4().hex[:8]}"
        self._module_names.append(name)
        header = '"""Tools generated by skill-conformance."""\n'
        if records_import:
            marker = json.dumps(str(self.import_marker(skill)))
            header += f"import pathlib\npathlib.Path({marker}).write_text('imported')\n"
        (self.modules_dir / f"{name}.py").write_text(header)
        return name

    def _append_function(self, import_path: str, skill: str, tool: str) -> None:
        module, _, function = import_path.rpartition(":")
        source = (
            f"\n\ndef {function}() -> str:\n"
            f"    {json.dumps(f'Tool {tool} of skill {skill}.')}\n"
            f"    return {json.dumps(f'{skill}:{tool}')}\n"
        )
        with (self.modules_dir / f"{module}.py").open("a") as handle:
            handle.write(source)

"""Every mutant, the requirement (or RFC regression) it breaks, the scenarios that must catch it.

Scenario ids are the features' ``@id`` tags: ``{requirement}.{scenario}``. A mutant is caught when
the suite's run against it exits non-zero and every scenario named here is failed or errored.
"""

from __future__ import annotations

from dataclasses import dataclass

AF = "inject-pool-providers-shall-inject-skills-tools-provider-for-all-agent-paths"
ER = "extensionregistry-shall-be-populated-with-skillmanagercap-during-pool-initialization"
SMC_COMBINED = "skillmanagercap-shall-extend-combinedtoolsetcapability"
SMC_MCP = "skillmanagercap-shall-track-per-skill-mcpservercap-children-in-skill-mcp-children"
SMC_POOL = "skillmanagercap-shall-be-registered-with-extensionregistry-at-pool-scope"
SMC_FILTER = "skillmanagercap-shall-filter-tools-via-composite-allowed-tools-filter"
SMC_FOR_RUN = "skillmanagercap-for-run-shall-propagate-tool-manager"
STR_PYTHON = "skill-python-tools-shall-be-registered-as-prefixed-agent-tools"
STR_MCP = "skill-mcp-servers-shall-be-registered-as-prefixed-agent-tools"
STR_ALLOWED = "skill-allowed-tools-shall-filter-registered-tools"
STR_REBUILD = "skill-tool-registration-shall-survive-pool-rebuild"
STR_FOR_RUN = "skill-tool-registration-shall-survive-for-run-copy"
ST_LOAD = "load-skill-tool-shall-resolve-skills-by-bare-name-or-uri"
ST_DISPATCH = "load-skill-shall-dispatch-via-skillresource-protocol-for-mcp-providers"
ST_ARGS = "load-skill-shall-support-argument-substitution"
ST_REFS = "load-skill-shall-load-reference-files"
ST_LIST = "list-skills-shall-return-all-visible-skills"
ST_ALL = "load-skill-and-list-skills-shall-be-available-to-all-agents"
SL_FOLDERS = "a-skills-directory-shall-yield-one-skill-per-direct-subfolder-holding-a-skill-md"
SL_BYTES = "a-skill-md-shall-read-the-same-whatever-its-byte-order-mark-and-line-endings"
SL_END = "the-frontmatter-shall-end-at-the-first-line-holding-only-three-dashes"
SL_COLON = "a-value-holding-a-colon-shall-be-read-whole"
SL_NAME = (
    "a-skill-s-name-shall-follow-the-format-and-a-name-differing-from-its-folder-shall-still-load"
)
SL_DESCRIPTION = "a-skill-shall-have-a-description-of-1-to-1024-characters"
SL_FIELDS = "the-format-s-optional-fields-and-unknown-fields-shall-not-keep-a-skill-from-loading"
SL_DUPLICATE = "a-frontmatter-with-a-key-written-twice-shall-be-refused"
SL_FILE = (
    "a-skill-md-shall-be-read-only-if-it-is-a-regular-file-in-its-skill-s-folder-within-size-limits"
)
SL_YAML = "yaml-that-nests-or-expands-without-bound-shall-be-refused"
SL_PROBLEMS = (
    "each-refused-skill-shall-be-reported-on-one-short-line-naming-its-file-line-and-field"
)
SMC_REBUILD_ENTERED = "a-pool-rebuild-shall-stop-the-mcp-servers-of-the-skill-manager-it-replaces"
STR_ISOLATION = "a-skill-whose-tools-fail-shall-take-no-other-skill-s-tools-away"
ST_LOCAL_FIRST = "a-local-skill-shall-take-precedence-over-a-remote-skill-of-the-same-name"
ST_REF_BOUNDS = "reading-a-reference-file-shall-stay-inside-the-skill-and-bounded"
SMC_ENTER = "a-failed-or-cancelled-enter-shall-leave-no-mcp-server-running"
ST_DECODE = "a-reference-path-in-a-skill-uri-shall-be-percent-decoded-exactly-once"
ST_RELEASE = "a-refused-reference-read-shall-leave-no-file-descriptor-open"
HOST_FIND = "a-host-shall-take-served-skills-from-skills-list-and-load-any-of-them-by-its-uri-alone"
HOST_CHECK = (
    "a-host-shall-verify-a-served-skill-before-its-model-gets-it"
    "-and-activate-no-nested-skill-unasked"
)

REQUIREMENTS = (
    AF,
    ER,
    SMC_COMBINED,
    SMC_MCP,
    SMC_POOL,
    SMC_FILTER,
    SMC_FOR_RUN,
    STR_PYTHON,
    STR_MCP,
    STR_ALLOWED,
    STR_REBUILD,
    STR_FOR_RUN,
    ST_LOAD,
    ST_DISPATCH,
    ST_ARGS,
    ST_REFS,
    ST_LIST,
    ST_ALL,
    SL_FOLDERS,
    SL_BYTES,
    SL_END,
    SL_COLON,
    SL_NAME,
    SL_DESCRIPTION,
    SL_FIELDS,
    SL_DUPLICATE,
    SL_FILE,
    SL_YAML,
    SL_PROBLEMS,
    SMC_REBUILD_ENTERED,
    STR_ISOLATION,
    ST_LOCAL_FIRST,
    ST_REF_BOUNDS,
    SMC_ENTER,
    ST_DECODE,
    ST_RELEASE,
    HOST_FIND,
    HOST_CHECK,
)

RFC_A = "rfc-a: skill manager not registered with the extension registry"
RFC_B = "rfc-b: per-skill tool manager lost in for_run"
RFC_C = "rfc-c: load_skill/list_skills not injected on one agent creation path"


def _ids(requirement: str, *scenarios: str) -> tuple[str, ...]:
    return tuple(f"{requirement}.{scenario}" for scenario in scenarios)


@dataclass(frozen=True)
class Mutant:
    """One deliberately broken variant of the reference."""

    attribute: str
    """``module:Attribute`` under ``tests.mutants``."""
    breaks: str
    """The requirement id (or the RFC regression) whose behaviour it breaks."""
    must_catch: tuple[str, ...]
    """Scenario ids that must fail or error against it."""
    survives: str = ""
    """Why the suite cannot catch it yet (a missing scenario); empty if it must die."""
    extra: bool = False
    """A second mutant of a requirement: run only with ``SC_ALL_MUTANTS=1`` (CI time)."""

    @property
    def impl(self) -> str:
        """The ``--impl`` value that loads it."""
        return f"tests.mutants.{self.attribute}"


_M = "manager_mutants:"
_H = "host_mutants:"
_L = "loader_mutants:"
_I = "isolation_mutants:"
_C = "clause_mutants:"
_P = "property_mutants:"
_S = "served_mutants:"

MUTANTS = (
    # -- the RFC's three regressions
    Mutant(
        _H + "NeverRegistersMutant",
        RFC_A,
        _ids(ER, "skillmanagercap-registered-during-pool-startup")
        + _ids(SMC_POOL, "skillmanagercap-registered-at-pool-scope")
        + _ids(SMC_POOL, "skill-uri-resolves-through-extensionregistry-with-flat-uri")
        + _ids(ST_LOAD, "load-skill-by-uri")
        + _ids(ST_REFS, "a-single-reference-is-read-by-uri"),
    ),
    Mutant(
        _M + "ForRunLosesSkillToolsMutant",
        RFC_B,
        _ids(SMC_FOR_RUN, "for-run-preserves-tool-manager")
        + _ids(STR_FOR_RUN, "for-run-preserves-python-tools")
        + _ids(STR_PYTHON, "skill-with-python-tools-registered"),
    ),
    Mutant(
        _H + "ChildSessionMissesSkillToolsMutant",
        RFC_C,
        _ids(AF, "child-session-agent-receives-skills-tools-provider")
        + _ids(ST_ALL, "child-session-agent-has-load-skill"),
    ),
    # -- agent-factory
    Mutant(
        _H + "InjectsWithoutAHostProviderMutant",
        AF,
        _ids(AF, "host-without-a-skill-tools-provider"),
    ),
    # -- extension-registry
    Mutant(
        _H + "NeverUnregistersMutant",
        ER,
        _ids(ER, "skillmanagercap-re-registered-after-rebuild")
        + _ids(ER, "repeated-rebuilds-leave-no-stale-registration"),
    ),
    Mutant(
        _H + "RebuildDoesNotRegisterMutant",
        ER,
        _ids(ER, "skillmanagercap-re-registered-after-rebuild")
        + _ids(ER, "repeated-rebuilds-leave-no-stale-registration"),
        extra=True,
    ),
    # -- skill-manager-cap
    Mutant(
        _M + "DropsChildToolsMutant",
        SMC_COMBINED,
        _ids(SMC_COMBINED, "skillmanagercap-inherits-tool-merging")
        + _ids(SMC_COMBINED, "the-agent-s-own-tools-are-offered-and-answer-beside-the-skills")
        + _ids(SMC_FILTER, "allowed-tools-not-declared-means-no-filter"),
    ),
    Mutant(
        _M + "CallsSuperToolsetMutant",
        SMC_COMBINED,
        _ids(SMC_COMBINED, "skillmanagercap-get-toolset-does-not-call-super")
        + _ids(STR_MCP, "skill-with-mcp-server-registered"),
        extra=True,
    ),
    Mutant(
        _M + "ImportsToolsLazilyMutant",
        SMC_COMBINED,
        _ids(SMC_COMBINED, "skillmanagercap-imports-python-tools-eagerly"),
        extra=True,
    ),
    Mutant(
        _M + "ExitsInStartOrderMutant",
        SMC_COMBINED,
        _ids(SMC_COMBINED, "skillmanagercap-inherits-lifecycle-management")
        + _ids(STR_MCP, "mcp-server-lifecycle-managed-by-skillmanagercap"),
        extra=True,
    ),
    Mutant(
        _H + "StartsServerWhenBuiltMutant",
        SMC_MCP,
        _ids(SMC_MCP, "per-skill-mcpservercap-tracked-in-mapping")
        + _ids(SMC_MCP, "many-mcp-declaring-skills-start-no-process-when-built"),
    ),
    Mutant(
        _H + "RegistersAtSessionScopeMutant",
        SMC_POOL,
        _ids(SMC_POOL, "skillmanagercap-registered-at-pool-scope")
        + _ids(SMC_POOL, "skill-uri-resolves-through-extensionregistry-with-flat-uri")
        + _ids(ER, "skillmanagercap-registered-during-pool-startup"),
    ),
    Mutant(
        _M + "FiltersByBareNamePrefixMutant",
        SMC_FILTER,
        _ids(SMC_FILTER, "a-skill-name-that-is-a-prefix-of-another-is-filtered-on-its-own"),
    ),
    Mutant(
        _M + "FiltersEveryToolNamedAfterSkillMutant",
        SMC_FILTER,
        _ids(
            SMC_FILTER,
            "a-tool-of-no-skill-whose-name-starts-like-a-filtered-skill-s-tools-stays",
        ),
        extra=True,
    ),
    Mutant(
        _M + "BareNameAfterLastSeparatorMutant",
        SMC_FILTER,
        _ids(SMC_FILTER, "an-allowed-mcp-tool-whose-name-contains-a-double-underscore-stays"),
        extra=True,
    ),
    Mutant(
        _M + "ForRunToolsUncallableMutant",
        SMC_FOR_RUN,
        _ids(SMC_FOR_RUN, "for-run-preserves-tool-manager")
        + _ids(STR_FOR_RUN, "for-run-preserves-python-tools"),
    ),
    # -- skill-tool-registration
    Mutant(
        _M + "SingleUnderscoreToolPrefixMutant",
        STR_PYTHON,
        _ids(STR_PYTHON, "skill-with-python-tools-registered")
        + _ids(STR_PYTHON, "multiple-skills-with-tools-are-isolated-by-prefix"),
    ),
    Mutant(
        _M + "ImportFailureAbortsBuildMutant",
        STR_PYTHON,
        _ids(STR_PYTHON, "an-invalid-import-path-leaves-the-other-skills-intact"),
        extra=True,
    ),
    Mutant(
        _M + "McpPrefixedByServerMutant",
        STR_MCP,
        _ids(STR_MCP, "skill-with-mcp-server-registered")
        + _ids(SMC_COMBINED, "skillmanagercap-inherits-tool-merging"),
    ),
    Mutant(
        _M + "EmptyAllowedToolsMeansAllMutant",
        STR_ALLOWED,
        _ids(STR_ALLOWED, "empty-allowed-tools-filters-all-skill-tools")
        + _ids(SMC_FILTER, "allowed-tools-empty-list-filters-all-skill-tools"),
    ),
    Mutant(
        _H + "RebuildKeepsOldManagerMutant",
        STR_REBUILD,
        _ids(STR_REBUILD, "pool-rebuild-with-added-skill")
        + _ids(STR_REBUILD, "pool-rebuild-with-removed-skill"),
    ),
    Mutant(
        _M + "ForRunKeepsFirstSkillToolsMutant",
        STR_FOR_RUN,
        _ids(STR_PYTHON, "multiple-skills-with-tools-are-isolated-by-prefix"),
    ),
    Mutant(
        _M + "ForRunRestartsServersMutant",
        STR_FOR_RUN,
        _ids(STR_FOR_RUN, "an-agent-run-on-an-entered-manager-starts-no-mcp-server-again"),
    ),
    # -- skill-tools
    Mutant(
        _H + "NotFoundReturnsEmptyMutant",
        ST_LOAD,
        _ids(ST_LOAD, "skill-not-found"),
    ),
    Mutant(
        _H + "BackslashAsSeparatorMutant",
        ST_LOAD,
        _ids(
            ST_LOAD,
            "a-bare-name-holding-a-backslash-is-refused",
            "a-bare-name-holding-a-backslash-fails-with-a-security-error",
        ),
        extra=True,
    ),
    Mutant(
        _H + "IgnoresRemoteProvidersMutant",
        ST_DISPATCH,
        _ids(ST_DISPATCH, "skill-discovery-via-protocol")
        + _ids(ST_DISPATCH, "remote-skill-loaded-by-bare-name")
        + _ids(ST_LIST, "list-skills-from-multiple-sources"),
    ),
    Mutant(
        _H + "RendersWholeSkillForReferenceMutant",
        ST_REFS,
        _ids(ST_REFS, "a-reference-read-by-uri-or-by-the-file-reader-is-that-file-alone"),
        extra=True,
    ),
    Mutant(
        _H + "ReadsTextResourcesOnlyMutant",
        ST_DISPATCH,
        _ids(ST_DISPATCH, "a-remote-skill-served-as-bytes-is-loaded-as-its-text"),
        extra=True,
    ),
    Mutant(
        _H + "DescribesRemoteSkillsByNameMutant",
        ST_LIST,
        _ids(ST_LIST, "a-remote-skill-is-listed-with-the-description-its-provider-gives"),
        extra=True,
    ),
    Mutant(
        _H + "AsksEveryChildMutant",
        ST_DISPATCH,
        _ids(ST_DISPATCH, "non-skillresource-capabilities-are-skipped"),
        extra=True,
    ),
    Mutant(
        _H + "SingleDigitPlaceholdersMutant",
        ST_ARGS,
        _ids(ST_ARGS, "a-two-digit-placeholder-is-one-placeholder")
        + _ids(ST_ARGS, "a-placeholder-without-an-argument-stays"),
    ),
    Mutant(
        _H + "SubstitutesTwiceMutant",
        ST_ARGS,
        _ids(ST_ARGS, "substituted-text-is-not-substituted-again"),
        extra=True,
    ),
    Mutant(
        _H + "LeavesOutReferencesMutant",
        ST_REFS,
        _ids(ST_REFS, "load-skill-with-references"),
    ),
    Mutant(
        _H + "PrefixContainmentMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "a-symlink-into-a-sibling-directory-that-shares-the-skill-s-name-prefix-is-blocked",
        ),
        extra=True,
    ),
    Mutant(
        _H + "ChecksOnlyTheRawPathMutant",
        ST_REFS,
        _ids(ST_REFS, "percent-encoded-traversal-is-blocked"),
        extra=True,
    ),
    Mutant(
        _H + "ReadsUncheckedReferencesMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "path-traversal-in-reference-path-is-blocked",
            "path-traversal-in-reference-path-fails-with-a-security-error",
            "percent-encoded-traversal-is-blocked",
            "percent-encoded-traversal-fails-with-a-security-error",
            "a-symlink-into-a-sibling-directory-that-shares-the-skill-s-name-prefix-is-blocked",
            "a-symlink-leading-out-of-the-skill-fails-with-a-security-error",
        ),
        extra=True,
    ),
    # Its message names the link's own path in the sibling-prefix scenario, a path inside the
    # skills directory, which the specs let an error name ([tools.bounds.no-host-path]).
    Mutant(
        _H + "NamesHostPathsMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "path-traversal-in-reference-path-is-blocked",
            "percent-encoded-traversal-is-blocked",
        ),
        extra=True,
    ),
    Mutant(
        _H + "ReadsAnyPathMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "reading-a-file-by-a-path-climbing-out-of-the-skill-reveals-nothing",
            "reading-a-file-by-an-absolute-path-reveals-nothing",
            "reading-a-file-through-a-symlink-out-of-the-skill-reveals-nothing",
            "reading-a-file-by-a-path-climbing-out-of-the-skill-fails-with-a-security-error",
        ),
        extra=True,
    ),
    Mutant(
        _H + "ReadsUnboundedMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "reading-a-named-pipe-among-a-skill-s-files-does-not-block",
            "reading-a-file-linked-to-a-device-is-bounded",
        ),
        extra=True,
    ),
    Mutant(
        _H + "PrefixContainedReaderMutant",
        ST_REFS,
        _ids(ST_REFS, "reading-a-file-through-a-symlink-out-of-the-skill-reveals-nothing"),
        extra=True,
    ),
    Mutant(
        _H + "ListsLocalSkillsWithoutUriMutant",
        ST_LIST,
        _ids(ST_LIST, "local-skills-are-listed-with-flat-skill-uris"),
    ),
    Mutant(
        _H + "StandaloneMissesSkillToolsMutant",
        ST_ALL,
        _ids(ST_ALL, "standalone-agent-has-load-skill")
        + _ids(AF, "standalone-agent-receives-skills-tools-provider"),
    ),
    Mutant(
        _H + "OffersOnlyLoadSkillMutant",
        ST_ALL,
        _ids(ST_ALL, "standalone-agent-has-load-skill")
        + _ids(ST_ALL, "child-session-agent-has-load-skill")
        + _ids(ST_LIST, "local-skills-are-listed-with-flat-skill-uris"),
        extra=True,
    ),
    # -- skill-loading
    Mutant(
        _L + "ScansHiddenFoldersMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "hidden-folders-stray-files-and-folders-without-skill-md-are-not-skills"),
    ),
    Mutant(
        _L + "ScansNestedFoldersMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "a-skill-md-below-a-skill-s-folder-is-not-another-skill"),
        extra=True,
    ),
    Mutant(
        _L + "KeepsTheByteOrderMarkMutant",
        SL_BYTES,
        _ids(SL_BYTES, "a-utf-8-byte-order-mark-is-ignored"),
    ),
    Mutant(
        _L + "KeepsLineEndingsMutant",
        SL_BYTES,
        _ids(SL_BYTES, "crlf-line-endings", "cr-line-endings"),
        extra=True,
    ),
    Mutant(
        _L + "SplitsAtEveryDashesMutant",
        SL_END,
        _ids(SL_END, "three-dashes-inside-a-value-stay-in-the-value"),
    ),
    Mutant(
        _L + "UnclosedFrontmatterLoadsMutant",
        SL_END,
        _ids(SL_END, "a-frontmatter-that-is-never-closed-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "ReadsNoColonValuesMutant",
        SL_COLON,
        _ids(SL_COLON, "an-unquoted-value-holding-a-colon-is-read-whole"),
    ),
    Mutant(
        _L + "QuotesColonValuesUnescapedMutant",
        SL_COLON,
        _ids(SL_COLON, "an-unquoted-value-holding-a-colon-and-an-apostrophe-is-read-whole"),
        extra=True,
    ),
    Mutant(
        _L + "HandRolledFrontmatterMutant",
        SL_COLON,
        _ids(SL_COLON, "a-quoted-value-holding-a-colon"),
        extra=True,
    ),
    Mutant(
        _L + "RefusesNameMismatchMutant",
        SL_NAME,
        _ids(SL_NAME, "a-name-that-differs-from-its-folder-loads-under-that-name")
        + _ids(SL_PROBLEMS, "problems-name-the-file-the-line-and-the-field"),
    ),
    Mutant(
        _L + "AcceptsAnyLowercaseNameMutant",
        SL_NAME,
        _ids(SL_NAME, "names-outside-the-format-are-refused-each-on-its-own"),
        extra=True,
    ),
    Mutant(
        _L + "NoDescriptionLimitMutant",
        SL_DESCRIPTION,
        _ids(SL_DESCRIPTION, "missing-empty-and-over-long-descriptions-are-refused"),
    ),
    Mutant(
        _L + "RefusesUnknownFieldsMutant",
        SL_FIELDS,
        _ids(SL_FIELDS, "the-format-s-optional-fields-load")
        + _ids(SL_FIELDS, "an-unknown-field-does-not-keep-a-skill-from-loading"),
    ),
    Mutant(
        _L + "AllowedToolsAsOneNameMutant",
        SL_FIELDS,
        _ids(SL_FIELDS, "allowed-tools-written-as-one-string"),
        extra=True,
    ),
    Mutant(
        _L + "StrictListsMismatchesByFolderMutant",
        SL_NAME,
        _ids(SL_NAME, "a-name-that-differs-from-its-folder-loads-under-that-name"),
        extra=True,
    ),
    Mutant(
        _L + "StrictLosesEverySkillToOneMutant",
        SL_COLON,
        _ids(
            SL_COLON,
            "an-unquoted-value-holding-a-colon-is-read-whole",
            "an-unquoted-value-holding-a-colon-and-an-apostrophe-is-read-whole",
            "every-unquoted-value-holding-a-colon-is-read-whole",
        ),
        extra=True,
    ),
    Mutant(
        _L + "NoLimitsRefusesAtTheLimitMutant",
        SL_FILE,
        _ids(
            SL_FILE,
            "a-skill-md-of-exactly-1-mib-loads-and-one-a-byte-longer-is-refused",
            "a-frontmatter-of-exactly-64-kib-loads-and-one-a-byte-longer-is-refused",
        ),
        extra=True,
    ),
    Mutant(
        _L + "KeepsTheLastOfARepeatedKeyMutant",
        SL_DUPLICATE,
        _ids(SL_DUPLICATE, "a-key-written-twice-is-refused")
        + _ids(SL_PROBLEMS, "problems-name-the-file-the-line-and-the-field"),
    ),
    Mutant(
        _L + "FollowsLinksOutMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-linked-out-of-its-skill-s-folder-is-refused"),
    ),
    Mutant(
        _L + "FolderCrashesTheLoadMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-that-is-a-folder-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "BlocksOnAPipeMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-that-is-a-named-pipe-is-refused-without-blocking")
        + _ids(SL_PROBLEMS, "hostile-input-gives-short-problem-lines"),
        extra=True,
    ),
    Mutant(
        _L + "ReadsDevicesWholeMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-linked-to-a-device-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "NoFileLimitMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-within-the-limits-loads-and-one-over-1-mib-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "NoFrontmatterLimitMutant",
        SL_FILE,
        _ids(SL_FILE, "a-frontmatter-over-64-kib-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "NoSizeLimitsMutant",
        SL_FILE,
        _ids(SL_FILE, "a-10-mb-frontmatter-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "NoDepthLimitMutant",
        SL_YAML,
        _ids(SL_YAML, "a-thousand-nested-sequences-keep-no-other-skill-from-loading")
        + _ids(SL_PROBLEMS, "hostile-input-gives-short-problem-lines"),
    ),
    Mutant(
        _L + "RefusesTheLimitItselfMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-of-exactly-1-mib-loads-and-one-a-byte-longer-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "NeverUnnestsMutant",
        SL_YAML,
        _ids(SL_YAML, "nesting-and-expansion-are-refused-just-past-their-bounds"),
        extra=True,
    ),
    Mutant(
        _L + "CountsScalarsAsLevelsMutant",
        SL_YAML,
        _ids(SL_YAML, "nesting-and-expansion-are-refused-just-past-their-bounds"),
        extra=True,
    ),
    Mutant(
        _L + "BoundsExpansionTenfoldMutant",
        SL_YAML,
        _ids(SL_YAML, "nesting-and-expansion-are-refused-just-past-their-bounds"),
        extra=True,
    ),
    Mutant(
        _L + "WalksAliasesWholeMutant",
        SL_YAML,
        _ids(SL_YAML, "aliases-expanding-in-the-name-keep-no-other-skill-from-loading")
        + _ids(SL_YAML, "aliases-expanding-in-a-tool-s-import-path-are-refused"),
        extra=True,
    ),
    Mutant(
        _L + "ProblemsWithoutLinesMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "problems-name-the-file-the-line-and-the-field"),
    ),
    Mutant(
        _L + "SkipsBadEntriesSilentlyMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "each-unusable-tools-or-mcp-servers-entry-is-reported-at-its-line"),
        extra=True,
    ),
    Mutant(
        _L + "YamlLinesOfTheFrontmatterMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "malformed-yaml-is-reported-at-the-line-where-it-goes-wrong"),
        extra=True,
    ),
    Mutant(
        _L + "QuotesValuesWholeMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "hostile-input-gives-short-problem-lines"),
        extra=True,
    ),
    # -- failure isolation, rebuild while entered, precedence, reference reading
    Mutant(
        _I + "ImportsInPlaceMutant",
        STR_ISOLATION,
        _ids(
            STR_ISOLATION,
            "a-tool-module-that-raises-systemexit-while-importing-leaves-the-other-skills-intact",
            "a-tool-module-that-raises-keyboardinterrupt-while-importing-leaves-the-other-skills"
            "-intact",
            "a-tool-module-that-never-finishes-importing-is-given-up",
        ),
    ),
    Mutant(
        _I + "ImportsWithoutTimeoutMutant",
        STR_ISOLATION,
        _ids(STR_ISOLATION, "a-tool-module-that-never-finishes-importing-is-given-up"),
        extra=True,
    ),
    Mutant(
        _I + "DeadServerFailsEveryRunMutant",
        STR_ISOLATION,
        _ids(
            STR_ISOLATION,
            "an-mcp-server-whose-command-does-not-exist-leaves-the-other-skills-tools-callable",
            "an-mcp-server-that-exits-at-once-leaves-the-other-skills-mcp-tools-callable",
            "an-mcp-server-that-never-answers-is-given-up-and-stopped",
            "an-mcp-server-that-cannot-be-reached-over-http-leaves-the-other-skills-tools-callable",
            "entering-the-skill-manager-starts-the-other-mcp-servers-when-one-exits-at-once",
        ),
    ),
    Mutant(
        _I + "RetriesDeadServersMutant",
        STR_ISOLATION,
        _ids(
            STR_ISOLATION,
            "entering-the-skill-manager-starts-the-other-mcp-servers-when-one-exits-at-once",
            "an-mcp-server-that-never-answers-is-given-up-once-not-on-every-run",
        ),
        extra=True,
    ),
    Mutant(
        _I + "RebuildForgetsEnteredManagerMutant",
        SMC_REBUILD_ENTERED,
        _ids(
            SMC_REBUILD_ENTERED,
            "a-rebuild-while-the-skill-manager-is-entered-leaves-none-of-its-servers-running",
        ),
    ),
    Mutant(
        _I + "RebuildStrandsKeptToolsMutant",
        STR_REBUILD,
        _ids(STR_REBUILD, "tools-that-remain-after-a-rebuild-stay-callable"),
        extra=True,
    ),
    Mutant(
        _I + "RemoteSkillsFirstMutant",
        ST_LOCAL_FIRST,
        _ids(
            ST_LOCAL_FIRST,
            "a-local-skill-wins-over-a-remote-one-of-the-same-name-by-bare-name-and-by-uri",
        ),
    ),
    Mutant(
        _I + "ChecksOnlyBackslashesMutant",
        ST_LOAD,
        _ids(
            ST_LOAD,
            "a-bare-name-holding-a-slash-is-refused",
            "a-bare-name-made-of-dots-only-is-refused",
        ),
        extra=True,
    ),
    Mutant(
        _I + "ReadsAbsolutePathsMutant",
        ST_REFS,
        _ids(ST_REFS, "an-absolute-reference-path-is-blocked"),
        extra=True,
    ),
    Mutant(
        _I + "ReadsReferencesByPathMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "a-reference-that-is-a-symlink-loop-gives-an-error-never-a-crash",
            "an-oversized-reference-is-not-read-whole",
        ),
    ),
    Mutant(
        _I + "QuotesHostPathsMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "reading-a-file-by-a-path-climbing-out-of-the-skill-reveals-nothing",
            "reading-a-file-through-a-symlink-out-of-the-skills-directory-reveals-nothing",
        ),
        extra=True,
    ),
    Mutant(
        _I + "FollowsFinalLinkMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "a-reference-replaced-by-a-link-after-loading-is-not-followed-outside-the-skill",
        ),
        extra=True,
    ),
    Mutant(
        _I + "RefusesAbsoluteLinksMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "a-reference-linking-by-absolute-path-to-a-file-of-its-own-skill-is-read",
        ),
        extra=True,
    ),
    Mutant(
        _I + "RefusesLinksUpwardMutant",
        ST_REF_BOUNDS,
        _ids(ST_REF_BOUNDS, "a-reference-linking-up-to-a-file-of-its-own-skill-is-read"),
        extra=True,
    ),
    Mutant(
        _I + "InlinesReferencesByPathMutant",
        ST_REF_BOUNDS,
        _ids(ST_REF_BOUNDS, "a-looping-reference-does-not-stop-a-bare-name-load-of-its-skill"),
        extra=True,
    ),
    Mutant(
        _I + "OpensPipesBlockingMutant",
        ST_REF_BOUNDS,
        _ids(ST_REF_BOUNDS, "a-reference-that-is-a-named-pipe-gives-an-error-without-blocking"),
        extra=True,
    ),
    Mutant(
        _I + "InlinesPipesBlockingMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "a-named-pipe-among-the-references-does-not-stop-a-bare-name-load-of-its-skill",
        ),
        extra=True,
    ),
    Mutant(
        _H + "ClosesWithoutExitingMutant",
        SMC_MCP,
        _ids(
            SMC_MCP,
            "closing-the-pool-while-the-skill-manager-is-entered-leaves-no-server-running",
        ),
        extra=True,
    ),
    Mutant(
        _L + "RefusesTheFrontmatterLimitItselfMutant",
        SL_FILE,
        _ids(SL_FILE, "a-frontmatter-of-exactly-64-kib-loads-and-one-a-byte-longer-is-refused"),
        extra=True,
    ),
    Mutant(
        _L + "ReportsUndecodableAtFirstLineMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "a-refused-skill-s-problem-names-the-file-the-line-and-the-field"),
        extra=True,
    ),
    Mutant(
        _L + "KeepsEmptyCommandsMutant",
        SL_PROBLEMS,
        _ids(SL_PROBLEMS, "each-unusable-tools-or-mcp-servers-entry-is-reported-at-its-line"),
        extra=True,
    ),
    Mutant(
        _L + "IteratesTheSkillsPathUncheckedMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "a-skills-directory-that-is-a-file-gives-no-skills")
        + _ids(SL_FOLDERS, "a-skills-directory-that-is-a-file-is-reported-as-a-problem"),
        extra=True,
    ),
    Mutant(
        _L + "IgnoresASkillsPathThatIsAFileMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "a-skills-directory-that-is-a-file-is-reported-as-a-problem"),
        extra=True,
    ),
    Mutant(
        _L + "RendersTheExpansionMutant",
        SL_YAML,
        _ids(SL_YAML, "aliases-expanding-in-the-name-keep-no-other-skill-from-loading")
        + _ids(SL_YAML, "aliases-expanding-in-a-tool-s-import-path-are-refused"),
        extra=True,
    ),
    # -- one clause each, the clauses no scenario checked before (issue 27)
    Mutant(
        _C + "NoChildrenWithoutSkillsDirMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "a-skills-directory-that-is-a-file-leaves-the-agent-its-other-tools"),
        extra=True,
    ),
    Mutant(
        _C + "DecodesAsLatin1Mutant",
        SL_BYTES,
        _ids(SL_BYTES, "text-outside-ascii-is-read-as-utf-8"),
        extra=True,
    ),
    Mutant(
        _C + "FindsFrontmatterAnywhereMutant",
        SL_END,
        _ids(SL_END, "a-frontmatter-that-does-not-start-the-file-is-refused"),
        extra=True,
    ),
    Mutant(
        _C + "ExactDashLinesMutant",
        SL_END,
        _ids(SL_END, "three-dash-lines-followed-by-spaces-open-and-close-the-frontmatter"),
        extra=True,
    ),
    Mutant(
        _C + "QuotesFirstColonValueOnlyMutant",
        SL_COLON,
        _ids(SL_COLON, "every-unquoted-value-holding-a-colon-is-read-whole"),
        extra=True,
    ),
    Mutant(
        _C + "TwoCharacterNamesMutant",
        SL_NAME,
        _ids(SL_NAME, "names-of-one-character-digits-and-single-hyphens-load"),
        extra=True,
    ),
    Mutant(
        _C + "DuplicateReportedAtTheWinnerMutant",
        SL_NAME,
        _ids(SL_NAME, "of-two-folders-declaring-one-name-the-copy-that-does-not-load-is-reported"),
        extra=True,
    ),
    Mutant(
        _C + "DescribesWithAnyValueMutant",
        SL_DESCRIPTION,
        _ids(SL_DESCRIPTION, "a-description-that-is-a-list-is-refused"),
        extra=True,
    ),
    Mutant(
        _C + "CountsDescriptionBytesMutant",
        SL_DESCRIPTION,
        _ids(SL_DESCRIPTION, "a-description-of-1024-characters-outside-ascii-loads"),
        extra=True,
    ),
    Mutant(
        _C + "SplitsAllowedToolsOnCommasMutant",
        SL_FIELDS,
        _ids(
            SL_FIELDS,
            "allowed-tools-written-as-a-string-of-names-separated-by-spaces-or-by-commas-alone",
        ),
        extra=True,
    ),
    Mutant(
        _C + "TopLevelDuplicatesOnlyMutant",
        SL_DUPLICATE,
        _ids(SL_DUPLICATE, "a-key-written-twice-inside-a-field-is-refused"),
        extra=True,
    ),
    Mutant(
        _C + "CountsCharactersMutant",
        SL_FILE,
        _ids(SL_FILE, "size-limits-count-bytes-not-characters"),
        extra=True,
    ),
    Mutant(
        _C + "ReadsWholeThenChecksMutant",
        SL_FILE,
        _ids(SL_FILE, "a-skill-md-of-a-gigabyte-is-refused-without-being-read-whole"),
        extra=True,
    ),
    Mutant(
        _C + "DropsChildrenAfterOneWithoutToolsetMutant",
        SMC_COMBINED,
        _ids(
            SMC_COMBINED, "every-non-skill-child-s-tools-are-offered-beside-a-child-offering-none"
        ),
        extra=True,
    ),
    Mutant(
        _C + "OneServerPerSkillMutant",
        SMC_MCP,
        _ids(SMC_MCP, "a-skill-declaring-two-mcp-servers-offers-the-tools-of-both"),
        extra=True,
    ),
    Mutant(
        _C + "CaseInsensitiveAllowedToolsMutant",
        SMC_FILTER,
        _ids(SMC_FILTER, "allowed-tools-names-are-compared-exactly-case-included"),
        extra=True,
    ),
    Mutant(
        _C + "EnterLeavesStartedServersMutant",
        SMC_ENTER,
        _ids(
            SMC_ENTER,
            "a-cancelled-enter-ends-cancelled-and-leaves-no-server-running",
            "an-enter-that-fails-leaves-no-server-running",
        ),
    ),
    Mutant(
        _C + "SwallowsCancelledEnterMutant",
        SMC_ENTER,
        _ids(SMC_ENTER, "a-cancelled-enter-ends-cancelled-and-leaves-no-server-running"),
        extra=True,
    ),
    Mutant(
        _C + "NamesToolsByImportPathMutant",
        STR_PYTHON,
        _ids(STR_PYTHON, "a-tool-is-named-after-its-function-not-after-the-name-it-is-imported-by"),
        extra=True,
    ),
    Mutant(
        _C + "PrefixesByFolderMutant",
        STR_PYTHON,
        _ids(STR_PYTHON, "a-skill-s-tools-are-prefixed-with-the-name-it-declares-not-its-folder-s"),
        extra=True,
    ),
    Mutant(
        _C + "AbandonsSkillAfterFailedImportMutant",
        STR_ISOLATION,
        _ids(STR_ISOLATION, "a-tool-that-cannot-be-imported-costs-its-skill-no-other-tool"),
        extra=True,
    ),
    Mutant(
        _C + "SkillLosesServersWithOneDeadMutant",
        STR_ISOLATION,
        _ids(STR_ISOLATION, "an-mcp-server-that-exits-at-once-costs-its-skill-no-other-server"),
        extra=True,
    ),
    Mutant(
        _C + "ForgetsCancelledStartsMutant",
        STR_ISOLATION,
        _ids(
            STR_ISOLATION, "an-mcp-server-whose-start-a-cancelled-enter-cut-short-is-given-up-once"
        ),
        extra=True,
    ),
    Mutant(
        _C + "RebuildKeepsKnownSkillsMutant",
        STR_REBUILD,
        _ids(STR_REBUILD, "a-skill-changed-before-a-rebuild-offers-the-tools-it-now-declares"),
        extra=True,
    ),
    Mutant(
        _C + "NamesToolsTheFilterRemovedMutant",
        ST_LOAD,
        _ids(ST_LOAD, "the-loaded-text-names-no-tool-the-agent-is-not-offered"),
        extra=True,
    ),
    Mutant(
        _C + "AsksTheFirstRemoteProviderOnlyMutant",
        ST_DISPATCH,
        _ids(ST_DISPATCH, "every-remote-skill-provider-is-asked"),
        extra=True,
    ),
    Mutant(
        _C + "SplitsArgumentsOnSpacesMutant",
        ST_ARGS,
        _ids(ST_ARGS, "arguments-are-split-on-any-run-of-white-space"),
        extra=True,
    ),
    Mutant(
        _C + "ZeroIsAPlaceholderMutant",
        ST_ARGS,
        _ids(ST_ARGS, "0-is-no-placeholder"),
        extra=True,
    ),
    Mutant(
        _C + "CollapsesWholeArgumentsMutant",
        ST_ARGS,
        _ids(ST_ARGS, "the-whole-argument-string-keeps-its-white-space"),
        extra=True,
    ),
    Mutant(
        _C + "SubstitutesWholeThenPositionalMutant",
        ST_ARGS,
        _ids(ST_ARGS, "text-the-whole-argument-string-brings-in-is-not-substituted-again"),
        extra=True,
    ),
    Mutant(
        _C + "UriSkipsArgumentsMutant",
        ST_ARGS,
        _ids(ST_ARGS, "arguments-are-substituted-when-the-skill-is-loaded-by-uri"),
        extra=True,
    ),
    Mutant(
        _C + "RefusesDoubleDotsInNamesMutant",
        ST_REFS,
        _ids(
            ST_REFS,
            "a-file-whose-name-holds-two-dots-is-read-by-its-path",
            "a-reference-whose-name-holds-two-dots-is-read-by-uri",
        ),
        extra=True,
    ),
    Mutant(
        _C + "ResolvesTheRealRootOnlyMutant",
        ST_REF_BOUNDS,
        _ids(
            ST_REF_BOUNDS,
            "a-link-inside-the-skill-is-followed-when-the-skills-directory-is-reached-through-a"
            "-link",
        ),
        extra=True,
    ),
    Mutant(
        _C + "DecodesPathsOnceMoreMutant",
        ST_DECODE,
        _ids(
            ST_DECODE,
            "a-reference-path-in-a-uri-is-decoded-once",
            "a-path-given-to-the-file-reader-is-not-decoded",
        ),
    ),
    Mutant(
        _C + "LeavesDescriptorsOpenMutant",
        ST_RELEASE,
        _ids(ST_RELEASE, "refused-reads-leave-no-descriptor-open"),
    ),
    # -- caught by a property scenario only: each point scenario of its clauses passes
    Mutant(
        _P + "NameAllowsUnderscoresMutant",
        SL_NAME,
        _ids(SL_NAME, "loading-name-chars-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "DescriptionCountsUtf16UnitsMutant",
        SL_DESCRIPTION,
        _ids(SL_DESCRIPTION, "loading-description-length-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "KeepsDescriptionsJustPastTheLimitMutant",
        SL_DESCRIPTION,
        _ids(SL_DESCRIPTION, "loading-description-length-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "StripsArgumentsMutant",
        ST_ARGS,
        _ids(ST_ARGS, "tools-args-split-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "TabIsOneSeparatorMutant",
        ST_ARGS,
        _ids(ST_ARGS, "tools-args-split-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "EndingsOfTheFirstKindMutant",
        SL_BYTES,
        _ids(SL_BYTES, "loading-encoding-bom-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "RereadsOnlyResizedSkillsMutant",
        STR_REBUILD,
        _ids(STR_REBUILD, "registration-rebuild-exact-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "SplitsAllowedToolsOneWayMutant",
        SL_FIELDS,
        _ids(SL_FIELDS, "loading-fields-allowed-tools-forms-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "DropsToolsByNamePrefixMutant",
        STR_ISOLATION,
        _ids(STR_ISOLATION, "registration-isolation-own-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "ReadsPathAsUrlMutant",
        ST_REFS,
        _ids(ST_REFS, "tools-refs-inline-holds-over-its-domain"),
        extra=True,
    ),
    Mutant(
        _P + "ReadsSubSkillsMutant",
        SL_FOLDERS,
        _ids(SL_FOLDERS, "loading-folders-one-per-folder-holds-over-its-domain"),
        extra=True,
    ),
    # -- mcp-skills, the host profile: one mutant per clause
    Mutant(
        _S + "TakesResourcesForSkillsMutant",
        HOST_FIND,
        _ids(HOST_FIND, "served-skills-come-from-skills-list-not-from-the-resource-list"),
    ),
    Mutant(
        _S + "LoadsListedSkillsOnlyMutant",
        HOST_FIND,
        _ids(HOST_FIND, "a-skill-left-out-of-a-partial-listing-is-loaded-from-its-uri-alone"),
        extra=True,
    ),
    Mutant(
        _S + "ShadowsServedSkillsMutant",
        HOST_FIND,
        _ids(HOST_FIND, "a-served-skill-with-a-local-skill-s-name-is-listed-and-loaded-beside-it"),
        extra=True,
    ),
    Mutant(
        _S + "TrustsTheBytesMutant",
        HOST_CHECK,
        _ids(
            HOST_CHECK,
            "a-file-whose-bytes-differ-from-its-digest-is-refused-and-reported-on-one-line",
        ),
    ),
    Mutant(
        _S + "ActivatesNestedSkillsMutant",
        HOST_CHECK,
        _ids(HOST_CHECK, "a-nested-skill-allowing-a-tool-takes-no-effect-without-approval"),
        extra=True,
    ),
    Mutant(
        _S + "GrantsNestedAllowedToolsMutant",
        HOST_CHECK,
        _ids(HOST_CHECK, "a-nested-skill-allowing-a-tool-takes-no-effect-without-approval"),
        extra=True,
    ),
)

"""The options of where memories are kept: a local directory or an object store, and the
table's upkeep. ``Settings`` inherits them, first of its groups."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from openclaw_tinmem.locations import DEFAULT_DB_PATH


class StorageSettings(BaseModel):
    """Where the memories table lives and how it is kept tidy."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # --- storage
    db_path: str = Field(
        DEFAULT_DB_PATH,
        min_length=1,
        description="LanceDB directory or any URI LanceDB accepts (s3://, gs://)",
    )
    table_name: str = Field("memories", min_length=1, description="Name of the memories table")
    storage_options: dict[str, str] = Field(
        default_factory=dict,
        description="Options of an object-store db_path (s3://, gs://, az://), passed to "
        'LanceDB: e.g. aws_endpoint, aws_region, aws_access_key_id = "${AWS_ACCESS_KEY_ID}", '
        'allow_http = "true" for a local server; credentials also come from the '
        "provider's usual environment variables",
    )
    storage_endpoint: str | None = Field(
        None,
        description="Endpoint of an S3-compatible server (MinIO, R2, a local test server) for "
        "an s3:// db_path; sets aws_endpoint",
    )
    storage_region: str | None = Field(
        None, description="Region of an s3:// db_path's bucket; sets aws_region"
    )
    storage_allow_http: bool = Field(
        False, description="Allow plain HTTP to the object store (a server on the local network)"
    )
    lock_timeout_seconds: float = Field(
        30.0, gt=0, description="How long a writer waits for the cross-process write lock"
    )
    object_store_single_writer: bool = Field(
        False,
        description="Only one host writes this object store: skip the start-up check that an "
        "s3:// server honours conditional writes, which several writers need (docs/deploying.md)",
    )
    upkeep_lease_seconds: float = Field(
        300.0,
        gt=0,
        description="On an object store, upkeep runs on one host at a time under a lease in the "
        "bucket; a host that dies holding it blocks upkeep this long at most",
    )
    optimize_every_writes: int = Field(
        50, ge=1, description="Compact the table and prune old versions after this many writes"
    )
    read_consistency_seconds: float = Field(
        0.25, ge=0, description="Reads notice other processes' writes within this many seconds"
    )
    version_retention_seconds: float = Field(
        60.0,
        ge=0,
        description="Versions older than this are pruned when the table is optimised; keep it "
        "longer than any read takes, or a recall that overlaps upkeep may fail",
    )

    def resolved_db_path(self) -> str:
        """The db path with ``~`` expanded; URIs are returned unchanged."""
        return self.db_path if "://" in self.db_path else str(Path(self.db_path).expanduser())

    def object_store_options(self) -> dict[str, str]:
        """The options LanceDB gets for an object-store db_path: the named storage_* options,
        then ``storage_options`` (which wins where both set the same key)."""
        named = {
            "aws_endpoint": self.storage_endpoint,
            "aws_region": self.storage_region,
            "allow_http": "true" if self.storage_allow_http else None,
        }
        options = {key: value for key, value in named.items() if value}
        return {**options, **self.storage_options}

    def is_local_store(self) -> bool:
        return "://" not in self.db_path or self.db_path.startswith("file://")

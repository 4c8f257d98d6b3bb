"""A store on object storage: the start-up check that several hosts may write it safely.

Lance commits a new table version by creating its manifest only if no other writer created
that version first. On S3 that is a conditional write (``If-None-Match: *``), which AWS S3,
MinIO, Cloudflare R2 and moto honour, but some S3-compatible servers ignore — and there two
hosts committing at once silently overwrite each other's versions (measured: 42 acknowledged
updates left 33 behind). Google Cloud Storage and Azure Blob Storage always honour
preconditions. So before the first write to an ``s3://`` store a process checks its server:
it creates a small object conditionally twice; the second must be refused. A server that
accepts it is refused in turn, unless ``object_store_single_writer`` says one host writes.
"""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any
from urllib.parse import urlsplit

from openclaw_tinmem.errors import StoreError

logger = logging.getLogger("openclaw_tinmem")

PROBE_PREFIX = "_tinmem/conditional-write-check"
# Status codes S3-compatible servers use to refuse a conditional write.
REFUSED = {"412", "409", "PreconditionFailed", "ConditionalRequestConflict"}

_checked: set[str] = set()  # stores found safe by this process
_checked_lock = threading.Lock()


# The checks' requests to the object store: botocore's own default is a minute for each,
# four minutes with its retries, for an endpoint that takes connections and never answers.
CONNECT_SECONDS = 5
READ_SECONDS = 15


def _option(options: dict[str, str], *names: str) -> str | None:
    for name in names:
        for key in (name, name.upper()):
            if options.get(key):
                return options[key]
    return None


def s3_client(uri: str, options: dict[str, str]) -> Any:
    """A botocore S3 client for the bucket of ``uri`` with LanceDB's storage options."""
    try:
        import botocore.config
        import botocore.session
    except ImportError as error:  # pragma: no cover - boto is in the s3 extra
        raise StoreError(
            "checking an s3:// store needs botocore: pip install 'openclaw-tinmem[s3]' "
            "(or set object_store_single_writer = true if only one host writes it)"
        ) from error
    endpoint = _option(options, "aws_endpoint", "aws_endpoint_url", "endpoint")
    virtual_hosted = _option(options, "aws_virtual_hosted_style_request") == "true"
    addressing = "virtual" if virtual_hosted or not endpoint else "path"
    session = botocore.session.get_session()
    return session.create_client(
        "s3",
        endpoint_url=endpoint,
        region_name=_option(options, "aws_region", "region") or "us-east-1",
        aws_access_key_id=_option(options, "aws_access_key_id", "access_key_id"),
        aws_secret_access_key=_option(options, "aws_secret_access_key", "secret_access_key"),
        aws_session_token=_option(options, "aws_session_token", "session_token"),
        config=botocore.config.Config(
            s3={"addressing_style": addressing},
            retries={"max_attempts": 3},
            connect_timeout=CONNECT_SECONDS,
            read_timeout=READ_SECONDS,
        ),
    )


def honours_conditional_writes(uri: str, options: dict[str, str]) -> bool:
    """Whether the server of this ``s3://`` URI refuses to create an object that exists."""
    from botocore.exceptions import ClientError

    parts = urlsplit(uri)
    bucket, prefix = parts.netloc, parts.path.strip("/")
    key = "/".join(part for part in (prefix, PROBE_PREFIX, uuid.uuid4().hex) if part)
    client = s3_client(uri, options)
    client.put_object(Bucket=bucket, Key=key, Body=b"1", IfNoneMatch="*")
    try:
        client.put_object(Bucket=bucket, Key=key, Body=b"2", IfNoneMatch="*")
    except ClientError as error:
        details = error.response.get("Error", {})
        status = str(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
        if {status, str(details.get("Code", ""))} & REFUSED:
            return True
        raise
    finally:
        client.delete_object(Bucket=bucket, Key=key)
    return False


def check_shared_store(uri: str, options: dict[str, str], *, single_writer: bool) -> None:
    """Refuse an ``s3://`` store whose server would let two hosts overwrite each other's
    commits, unless ``single_writer``; checked once per store and process."""
    if not uri.startswith(("s3://", "s3a://")) or single_writer:
        return
    with _checked_lock:
        if uri in _checked:
            return
        try:
            safe = honours_conditional_writes(uri, options)
        except StoreError:
            raise
        except Exception as error:
            raise StoreError(f"could not check the object store at {uri}: {error}") from error
        if not safe:
            raise StoreError(
                f"the object store at {uri} ignores conditional writes (If-None-Match), so "
                "hosts writing it at once would overwrite each other's commits and lose "
                "memories. Use a server that honours them (AWS S3, MinIO, Cloudflare R2), or "
                "set object_store_single_writer = true if only one host writes this store "
                "(see docs/deploying.md)"
            )
        _checked.add(uri)
        logger.info("object store %s honours conditional writes: several hosts may write", uri)

"""Table storage behind one interface: Redis (one or many processes, or a cluster) or memory."""

from kafana.store.base import Append, AppendResult, Entry, Outcome, Snapshot, TableStore

__all__ = ["Append", "AppendResult", "Entry", "Outcome", "Snapshot", "TableStore"]

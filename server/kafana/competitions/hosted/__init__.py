"""Tournaments hosted by the service: events in a store, a director per event, the RPCs."""

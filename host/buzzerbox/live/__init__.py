"""The live stream engine: a state pushed to every screen as Server-Sent Events.

- sse.py         Stream, the one engine: the ring of messages, their ids, catch-up, the
                 stream a thread writes (and SSE frames, the clients' count, StreamBody)
- livestate.py   StateView: the phones' view of the box, the full state then each change
                 as a JSON Patch (the hub's view is its leaderboard's updates:
                 Stream.publish)
- delta.py       the patch between two states
- fanout.py      a few threads write the stream to a thousand phones under waitress
- handover.py    a phone's connection, from waitress to the fanout once its head is sent
- shard.py       one sender's share of the phones: those in step, the rest, hang-ups
- connection.py  one phone's socket, as the fanout writes it

It knows nothing of the box, the rules, the pads or the store: the box's app
(web/) and the event's hub (hub/) both stream with it.
"""

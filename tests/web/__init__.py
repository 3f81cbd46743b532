"""The web side: API, live stream, the box, a real `buzzerbox serve`."""

"""The bgref application: the live referee, its command line and records."""

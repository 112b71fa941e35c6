/** Node itself: a module that only keeps the process alive. */
setInterval(() => undefined, 1_000);

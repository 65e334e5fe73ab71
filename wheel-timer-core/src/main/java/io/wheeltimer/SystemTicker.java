package io.wheeltimer;

/** {@link Ticker#system()}: {@link System#nanoTime()} and the interface's parking defaults. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}

package io.wheeltimer.jdbc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what {@link JdbcDurableTimer} logs through {@code System.Logger} (JUL in tests): WARNING
 * arrives as JUL {@code WARNING}, ERROR as {@code SEVERE}. Use in try-with-resources.
 */
final class LogCapture extends Handler implements AutoCloseable {

    /** Held strongly: JUL keeps loggers only weakly, and with them their handlers. */
    private final Logger logger;

    private final Level previousLevel;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogCapture(String name) {
        System.getLogger(name); // make sure the logger exists before the handler is added
        this.logger = Logger.getLogger(name);
        this.previousLevel = logger.getLevel();
        setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.addHandler(this);
    }

    static LogCapture durableTimerLog() {
        return new LogCapture(JdbcDurableTimer.class.getName());
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(previousLevel);
    }

    List<LogRecord> records(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    List<String> messages(Level level) {
        return records(level).stream().map(LogRecord::getMessage).toList();
    }
}

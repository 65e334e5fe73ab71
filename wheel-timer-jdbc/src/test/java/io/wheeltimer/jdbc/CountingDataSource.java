package io.wheeltimer.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@code DataSource} that records every statement executed through it: the thread, the SQL, and the
 * rows it wrote (an update count, or the rows a data-changing query returned).
 */
final class CountingDataSource extends DelegatingDataSource {

    /** One executed statement; a batch counts as one. */
    record Executed(String thread, String sql, long nanoTime, AtomicInteger rowsWritten) {}

    private final Queue<Executed> executed = new ConcurrentLinkedQueue<>();

    CountingDataSource(DataSource target) {
        super(target);
    }

    List<Executed> executed() {
        return List.copyOf(executed);
    }

    void clear() {
        executed.clear();
    }

    @Override
    public Connection getConnection() throws java.sql.SQLException {
        return proxy(Connection.class, super.getConnection(), this::connectionCall);
    }

    @Override
    public Connection getConnection(String username, String password) throws java.sql.SQLException {
        return proxy(Connection.class, super.getConnection(username, password), this::connectionCall);
    }

    private Object connectionCall(Object target, Method method, Object[] args) throws Throwable {
        Object result = invoke(target, method, args);
        if (result instanceof PreparedStatement statement && args != null && args[0] instanceof String sql) {
            return proxy(PreparedStatement.class, statement, (t, m, a) -> statementCall(t, m, a, sql));
        }
        if (result instanceof Statement statement && !(result instanceof PreparedStatement)) {
            return proxy(Statement.class, statement, (t, m, a) -> statementCall(t, m, a, null));
        }
        return result;
    }

    private Object statementCall(Object target, Method method, Object[] args, String preparedSql) throws Throwable {
        String name = method.getName();
        if (!name.startsWith("execute")) {
            return invoke(target, method, args);
        }
        String sql = preparedSql != null ? preparedSql : args != null && args.length > 0 ? (String) args[0] : "?";
        Executed record = new Executed(Thread.currentThread().getName(), sql, System.nanoTime(), new AtomicInteger());
        executed.add(record);
        Object result = invoke(target, method, args);
        if (result instanceof Integer count) {
            record.rowsWritten().addAndGet(Math.max(0, count));
        } else if (result instanceof Long count) {
            record.rowsWritten().addAndGet((int) Math.max(0, count));
        } else if (result instanceof int[] counts) {
            for (int count : counts) {
                record.rowsWritten().addAndGet(count >= 0 ? count : 1); // SUCCESS_NO_INFO: one row
            }
        } else if (result instanceof ResultSet rows && changesData(sql)) {
            return proxy(ResultSet.class, rows, (t, m, a) -> {
                Object next = invoke(t, m, a);
                if (m.getName().equals("next") && Boolean.TRUE.equals(next)) {
                    record.rowsWritten().incrementAndGet();
                }
                return next;
            });
        }
        return result;
    }

    private static boolean changesData(String sql) {
        String upper = sql.toUpperCase(Locale.ROOT);
        return upper.contains("UPDATE ") && !upper.contains("FOR UPDATE")
                || upper.startsWith("DELETE")
                || upper.startsWith("INSERT");
    }

    private interface Call {
        Object call(Object target, Method method, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Object target, Call call) {
        InvocationHandler handler = (p, method, args) -> call.call(target, method, args);
        return (T) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}

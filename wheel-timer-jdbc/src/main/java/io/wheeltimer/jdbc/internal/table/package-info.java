/**
 * Internal to wheel-timer-jdbc, not an API: the one owner of the durable timeouts' SQL. The timeouts
 * table and its instances table, every statement on them, the dialect of each supported database and
 * the rows they read and write live here, behind one door,
 * {@link io.wheeltimer.jdbc.internal.table.TimeoutTable}: the rest of the module calls that class and
 * never names a dialect. The door, its row records and {@code StorableText} (the text columns' widths
 * and what every database stores in them, which the parent package checks names and errors against)
 * are public only because Java has no other way to let the parent package use them; everything else
 * here is package-private. Names and signatures may change in any release.
 *
 * <p>The schema and upgrade scripts stay under {@code io/wheeltimer/jdbc/} in the resources, where
 * users and the documentation name them.
 */
package io.wheeltimer.jdbc.internal.table;

/* A deterministic SQL workload for sqlite3: builds tables, runs joins,
 * aggregates, window functions, recursive CTEs, string and JSON functions,
 * and prints every result row plus a checksum. Used to compare a split or
 * parallel build of sqlite3 with a stock one: the output must be identical.
 *   sqlite_workload [scale]   (default scale 2000 rows) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static unsigned long long checksum = 1469598103934665603ULL;

static void mix(const char *s) {
  for (; s && *s; s++) checksum = (checksum ^ (unsigned char)*s) * 1099511628211ULL;
}

static int print_row(void *print, int n, char **values, char **names) {
  for (int i = 0; i < n; i++) {
    mix(names[i]);
    mix(values[i] ? values[i] : "NULL");
    if (print) printf("%s%s", i ? "|" : "", values[i] ? values[i] : "NULL");
  }
  if (print) printf("\n");
  return 0;
}

static void run(sqlite3 *db, const char *sql, int print) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, print_row, print ? (void *)1 : NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "SQL error: %s\nin: %s\n", err, sql);
    sqlite3_free(err);
    exit(1);
  }
}

int main(int argc, char **argv) {
  int scale = argc > 1 ? atoi(argv[1]) : 2000;
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  run(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, grp INT, name TEXT, val REAL, blob BLOB);"
          "CREATE INDEX t_grp ON t(grp, val);"
          "CREATE TABLE g(grp INTEGER PRIMARY KEY, label TEXT);", 0);
  run(db, "BEGIN", 0);
  sqlite3_stmt *ins;
  sqlite3_prepare_v2(db, "INSERT INTO t(grp, name, val, blob) VALUES(?,?,?,?)", -1, &ins, NULL);
  unsigned x = 12345;
  for (int i = 0; i < scale; i++) {
    char name[32], blob[16];
    x = x * 1103515245u + 12345u;
    snprintf(name, sizeof name, "n%u_%d", x % 977, i % 13);
    for (int k = 0; k < 16; k++) blob[k] = (char)(x >> (k % 24));
    sqlite3_bind_int(ins, 1, (int)(x % 37));
    sqlite3_bind_text(ins, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(ins, 3, (double)(x % 100000) / 7.0);
    sqlite3_bind_blob(ins, 4, blob, 16, SQLITE_TRANSIENT);
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  run(db, "INSERT INTO g SELECT DISTINCT grp, 'group-' || grp FROM t;", 0);
  run(db, "COMMIT", 0);
  run(db, "SELECT g.label, count(*), printf('%.3f', avg(val)), min(name), max(name) "
          "FROM t JOIN g USING(grp) GROUP BY grp ORDER BY grp;", 1);
  run(db, "SELECT grp, name, printf('%.2f', val), rank() OVER (PARTITION BY grp ORDER BY val DESC) AS r "
          "FROM t WHERE id % 97 = 0 ORDER BY grp, r, name;", 1);
  run(db, "WITH RECURSIVE c(n, f) AS (SELECT 1, 1 UNION ALL SELECT n + 1, (f * (n + 1)) % 1000003 FROM c WHERE n < 500) "
          "SELECT sum(f), max(f) FROM c;", 1);
  run(db, "SELECT upper(substr(name, 2, 3)), length(name), hex(substr(blob, 1, 4)), instr(name, '_') "
          "FROM t WHERE id < 20 ORDER BY id;", 1);
  run(db, "SELECT json_object('grp', grp, 'n', count(*), 'names', json_group_array(name)) "
          "FROM (SELECT * FROM t WHERE id < 60) GROUP BY grp ORDER BY grp LIMIT 5;", 1);
  run(db, "UPDATE t SET val = val * 2 WHERE grp IN (SELECT grp FROM g WHERE grp % 3 = 0);"
          "DELETE FROM t WHERE id % 11 = 0;", 0);
  run(db, "SELECT count(*), printf('%.4f', sum(val)), total_changes() FROM t;", 1);
  run(db, "SELECT a.grp, b.grp, count(*) FROM t a JOIN t b ON a.grp = b.grp + 1 AND a.id % 50 = 0 AND b.id % 50 = 1 "
          "GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 10;", 1);
  run(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM t ORDER BY val LIMIT 8);", 1);
  run(db, "SELECT * FROM t WHERE name LIKE 'n1%' AND val BETWEEN 100 AND 5000 ORDER BY val LIMIT 3;", 0);
  run(db, "SELECT grp, count(*) FROM t GROUP BY grp HAVING count(*) > 0 ORDER BY 2 DESC, 1;", 0);
  sqlite3_close(db);
  printf("checksum %016llx\n", checksum);
  return 0;
}

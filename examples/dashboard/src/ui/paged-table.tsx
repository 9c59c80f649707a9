import type { HTMLAttributes, ReactNode } from 'react';
import { PagedListView, type PagedListViewProps } from './paged-list-view.js';

/** One column of a `PagedTable`. */
export interface Column<T> {
  /** Unique in the table (React's key). */
  key: string;
  /** The header cell's content. */
  header: ReactNode;
  /** A figure: header and cells right-aligned. */
  numeric?: boolean;
  /** A sortable column's `aria-sort`. */
  sort?: 'ascending' | 'descending' | 'none';
  /** The class of each of its cells, beside `numeric`. */
  cellClass?: string;
  cell(item: T): ReactNode;
}

type RowProps = HTMLAttributes<HTMLTableRowElement> & { [data: `data-${string}`]: string };

interface PagedTableProps<T> extends Omit<PagedListViewProps<T>, 'children'> {
  className?: string;
  caption?: ReactNode;
  /** In order; `false` leaves a column out (one shown only sometimes). The first one's cells head their rows. */
  columns: Array<NoInfer<Column<T>> | false>;
  rowKey(item: NoInfer<T>): string | number;
  /** Attributes of an item's row (a class, `data-` ids). */
  rowProps?(item: NoInfer<T>): RowProps;
}

/** A cursor-paged list as a table: its error, first load and empty states around it, and "load more" below. */
export function PagedTable<T>({ className, caption, columns, rowKey, rowProps, ...view }: PagedTableProps<T>) {
  const shown = columns.filter((column): column is Column<T> => column !== false);
  return (
    <PagedListView {...view}>
      <div className="table-wrap">
        <table className={className}>
          {caption ? <caption>{caption}</caption> : null}
          <thead>
            <tr>
              {shown.map((column) => (
                <th key={column.key} scope="col" className={column.numeric ? 'numeric' : undefined} aria-sort={column.sort}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {view.list.items.map((item) => (
              <tr key={rowKey(item)} {...rowProps?.(item)}>
                {shown.map((column, index) => {
                  const cellClass = [column.numeric ? 'numeric' : '', column.cellClass ?? ''].join(' ').trim() || undefined;
                  return index === 0 ? (
                    <th key={column.key} scope="row" className={cellClass}>
                      {column.cell(item)}
                    </th>
                  ) : (
                    <td key={column.key} className={cellClass}>
                      {column.cell(item)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </PagedListView>
  );
}
